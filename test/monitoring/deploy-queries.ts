/**
 * Every PromQL query deploy/ ships — each alert rule's `expr` and each dashboard panel's target — with
 * the metric names it selects, read by Prometheus' own parser (`@prometheus-io/lezer-promql`). The rule
 * files are YAML whose expressions are kept to one plain line each, so they are read line by line here
 * (no YAML library among the dependencies); a rule written otherwise fails the read instead of being
 * skipped. `promtool check rules` (scripts/check-rules.ts) checks the files as a whole where it is installed.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parser } from '@prometheus-io/lezer-promql'

export type SyntaxNode = ReturnType<typeof parser.parse>['topNode']

export interface DeployQuery {
  /** The file, and the alert or panel in it. */
  where: string
  expr: string
}

export interface AlertRule extends DeployQuery {
  alert: string
  severity: string | undefined
  summary: boolean
  description: boolean
}

/** The alert rules of every `*.rules.yml` in `dir`, in order. */
export function readAlertRules(dir: string): AlertRule[] {
  const rules: AlertRule[] = []
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.rules.yml')).sort()) {
    const lines = readFileSync(join(dir, name), 'utf8').split('\n')
    lines.forEach((line, i) => {
      const alert = /^\s*- alert:\s*(\S+)\s*$/.exec(line)
      if (alert) return void rules.push({ alert: alert[1]!, where: `${name}: ${alert[1]}`, expr: '', severity: undefined, summary: false, description: false })
      const rule = rules.at(-1)
      const field = /^\s*(expr|severity|summary|description):\s*(.*)$/.exec(line)
      if (!field) return
      if (!rule) throw new Error(`${name}:${i + 1}: ${field[1]} outside an alert rule`)
      if (field[1] === 'expr') {
        if (rule.expr !== '') throw new Error(`${name}:${i + 1}: a second expr in ${rule.alert}`)
        if (/^["'|>]/.test(field[2]!) || field[2] === '') throw new Error(`${name}:${i + 1}: ${rule.alert}'s expr must be one plain line`)
        rule.expr = field[2]!.trim()
      } else if (field[1] === 'severity') rule.severity = field[2]!.trim()
      else rule[field[1] as 'summary' | 'description'] = field[2]!.trim() !== ''
    })
  }
  for (const rule of rules) if (rule.expr === '') throw new Error(`${rule.where} has no expr`)
  return rules
}

interface Panel {
  title?: string
  targets?: { expr?: string }[]
  panels?: Panel[]
}

/** Every panel target of every dashboard JSON in `dir` (rows' nested panels included). */
export function readDashboardQueries(dir: string): DeployQuery[] {
  const queries: DeployQuery[] = []
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const walk = (panels: Panel[] = []) => {
      for (const panel of panels) {
        for (const target of panel.targets ?? []) {
          if (typeof target.expr !== 'string') throw new Error(`${name}: panel "${panel.title}" has a target without expr`)
          queries.push({ where: `${name}: ${panel.title}`, expr: target.expr })
        }
        walk(panel.panels)
      }
    }
    walk((JSON.parse(readFileSync(join(dir, name), 'utf8')) as { panels?: Panel[] }).panels)
  }
  return queries
}

/** The parsed query's root expression; throws where the parser found an error. */
export function parsePromQL(expr: string): SyntaxNode {
  const tree = parser.parse(expr)
  tree.iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`PromQL syntax error at ${node.from} in ${JSON.stringify(expr)}`)
    },
  })
  const root = tree.topNode.firstChild
  if (!root) throw new Error(`empty PromQL ${JSON.stringify(expr)}`)
  return root
}

/** The metric names `expr` selects. A selector by `__name__` is refused: its name could not be checked. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>()
  const visit = (node: SyntaxNode) => {
    if (node.type.name === 'VectorSelector') {
      const identifier = node.getChild('Identifier')
      if (!identifier) throw new Error(`a selector without a metric name in ${JSON.stringify(expr)}`)
      names.add(expr.slice(identifier.from, identifier.to))
    }
    if (node.type.name === 'LabelName' && expr.slice(node.from, node.to) === '__name__') throw new Error(`a selector by __name__ in ${JSON.stringify(expr)}`)
    for (let child = node.firstChild; child; child = child.nextSibling) visit(child)
  }
  visit(parsePromQL(expr))
  return [...names]
}

/** Names Prometheus itself gives every target, which no piece exports. */
const PROMETHEUS_SERIES = new Set(['up'])

/** Each query's names that `exported` lacks, as "where: name" lines (empty when every name is exported). */
export function unknownMetricNames(queries: DeployQuery[], exported: ReadonlySet<string>): string[] {
  return queries.flatMap(({ where, expr }) => metricNames(expr).filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name)).map((name) => `${where}: ${name}`))
}
