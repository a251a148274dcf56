/**
 * A small evaluator of the instant PromQL the alert rules that the tests drive keep to, over samples
 * scraped once (scraped-samples.ts): number literals, selectors with label matchers (=, !=, =~, !~),
 * parentheses, `sum`/`min`/`max`/`count`/`avg` with `by` or `without`, arithmetic (+ - * /), comparisons
 * as filters (== != > < >= <=) and `and`/`or`/`unless`, between a vector and a number or two vectors
 * matched one-to-one on all their labels but the name. Anything else — ranges, functions, `bool`, `on`,
 * `ignoring` — is refused by name rather than guessed at. A rule's `for` is not evaluated: a non-empty
 * result means its condition holds now, which is what Prometheus then waits `for` on.
 */
import { parsePromQL, type SyntaxNode } from './deploy-queries.js'
import type { Sample } from './scraped-samples.js'

type Value = number | Sample[]

const ARITHMETIC: Record<string, (a: number, b: number) => number> = { Add: (a, b) => a + b, Sub: (a, b) => a - b, Mul: (a, b) => a * b, Div: (a, b) => a / b }
const COMPARISON: Record<string, (a: number, b: number) => boolean> = {
  Eql: (a, b) => a === b,
  Neq: (a, b) => a !== b,
  Gtr: (a, b) => a > b,
  Lss: (a, b) => a < b,
  Gte: (a, b) => a >= b,
  Lte: (a, b) => a <= b,
}
const AGGREGATE: Record<string, (values: number[]) => number> = {
  Sum: (v) => v.reduce((a, b) => a + b, 0),
  Min: (v) => Math.min(...v),
  Max: (v) => Math.max(...v),
  Count: (v) => v.length,
  Avg: (v) => v.reduce((a, b) => a + b, 0) / v.length,
}

/** The labels but the name, in a fixed order: what one-to-one matching compares. */
const signature = (labels: Record<string, string>) =>
  JSON.stringify(Object.entries(labels).filter(([name]) => name !== '__name__').sort(([a], [b]) => a.localeCompare(b)))
const withoutName = ({ __name__: _, ...labels }: Record<string, string>) => labels

export function evaluate(expr: string, samples: Sample[]): Value {
  const text = (node: SyntaxNode) => expr.slice(node.from, node.to)
  const unsupported = (node: SyntaxNode): never => {
    throw new Error(`${node.type.name} (${JSON.stringify(text(node))}) is not supported by the test's evaluator`)
  }

  const select = (node: SyntaxNode): Sample[] => {
    const name = text(node.getChild('Identifier') ?? unsupported(node))
    const matchers = (node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((m) => {
      const label = text(m.getChild('LabelName')!)
      const op = m.getChild('MatchOp')!.firstChild!.type.name
      const value = JSON.parse(text(m.getChild('StringLiteral')!)) as string
      const pattern = new RegExp(`^(?:${value})$`)
      return (labels: Record<string, string>) => {
        const actual = labels[label] ?? ''
        if (op === 'EqlSingle') return actual === value
        if (op === 'Neq') return actual !== value
        if (op === 'EqlRegex') return pattern.test(actual)
        return !pattern.test(actual)
      }
    })
    return samples.filter((s) => s.labels.__name__ === name && matchers.every((matches) => matches(s.labels)))
  }

  const aggregate = (node: SyntaxNode): Sample[] => {
    const reduce = AGGREGATE[node.getChild('AggregateOp')!.firstChild!.type.name] ?? unsupported(node)
    const modifier = node.getChild('AggregateModifier')
    const grouping = modifier ? modifier.getChild('GroupingLabels')!.getChildren('LabelName').map(text) : []
    const keep = modifier?.getChild('Without')
      ? (labels: Record<string, string>) => Object.fromEntries(Object.entries(withoutName(labels)).filter(([name]) => !grouping.includes(name)))
      : (labels: Record<string, string>) => Object.fromEntries(grouping.filter((name) => name in labels).map((name) => [name, labels[name]!]))
    const body = vector(node.getChild('FunctionCallBody')!.firstChild!)
    const groups = new Map<string, { labels: Record<string, string>; values: number[] }>()
    for (const sample of body) {
      const labels = keep(sample.labels)
      const key = signature(labels)
      const group = groups.get(key) ?? groups.set(key, { labels, values: [] }).get(key)!
      group.values.push(sample.value)
    }
    return [...groups.values()].map(({ labels, values }) => ({ labels, value: reduce(values) }))
  }

  const binaryExpr = (node: SyntaxNode): Value => {
    const children: SyntaxNode[] = []
    for (let child = node.firstChild; child; child = child.nextSibling) children.push(child)
    if (children.length !== 3) return unsupported(node)
    const [lhsNode, opNode, rhsNode] = children as [SyntaxNode, SyntaxNode, SyntaxNode]
    const op = opNode.type.name
    const lhs = value(lhsNode)
    const rhs = value(rhsNode)
    if (op === 'And' || op === 'Or' || op === 'Unless') {
      if (typeof lhs === 'number' || typeof rhs === 'number') return unsupported(node)
      const right = new Set(rhs.map((s) => signature(s.labels)))
      if (op === 'And') return lhs.filter((s) => right.has(signature(s.labels)))
      if (op === 'Unless') return lhs.filter((s) => !right.has(signature(s.labels)))
      const left = new Set(lhs.map((s) => signature(s.labels)))
      return [...lhs, ...rhs.filter((s) => !left.has(signature(s.labels)))]
    }
    const arithmetic = ARITHMETIC[op]
    const compare = COMPARISON[op] ?? (arithmetic ? undefined : unsupported(opNode))
    if (typeof lhs === 'number' && typeof rhs === 'number') return arithmetic ? arithmetic(lhs, rhs) : unsupported(node)
    // Pairs of (left value, right value, the sample a comparison keeps, the labels arithmetic gives).
    const pairs: [number, number, Sample][] =
      typeof rhs === 'number'
        ? (lhs as Sample[]).map((s) => [s.value, rhs, s])
        : typeof lhs === 'number'
          ? rhs.map((s) => [lhs, s.value, s])
          : lhs.flatMap((l) => {
              const match = rhs.filter((r) => signature(r.labels) === signature(l.labels))
              if (match.length > 1) throw new Error(`many-to-one match in ${JSON.stringify(text(node))}: not supported`)
              return match.map((r): [number, number, Sample] => [l.value, r.value, l])
            })
    if (arithmetic) return pairs.map(([a, b, s]) => ({ labels: withoutName(s.labels), value: arithmetic(a, b) }))
    return pairs.filter(([a, b]) => compare!(a, b)).map(([, , s]) => s)
  }

  const vector = (node: SyntaxNode): Sample[] => {
    const result = value(node)
    if (typeof result === 'number') throw new Error(`${JSON.stringify(text(node))} is a number where a vector is wanted`)
    return result
  }

  const value = (node: SyntaxNode): Value => {
    switch (node.type.name) {
      case 'NumberDurationLiteral': {
        const number = Number(text(node))
        return Number.isNaN(number) ? unsupported(node) : number
      }
      case 'ParenExpr':
        return value(node.firstChild!)
      case 'VectorSelector':
        return select(node)
      case 'AggregateExpr':
        return aggregate(node)
      case 'BinaryExpr':
        return binaryExpr(node)
      default:
        return unsupported(node)
    }
  }

  return value(parsePromQL(expr))
}
