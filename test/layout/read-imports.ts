/**
 * Reads what a source file loads, for the layering check: static imports, re-exports (`export * from`,
 * `export { a } from`), side-effect imports and `import()` calls. Comments and regular-expression bodies are
 * blanked first, so a comment that shows an import is not one; string and template text is kept, so a
 * dynamic import written into code that is evaluated elsewhere (a worker's boot string) is still seen.
 * A regular expression is told from a division the usual way, by what precedes the slash.
 */

export interface SourceImport {
  specifier: string
  /** `export … from`: the file hands the names on, so its importers reach the target too. */
  reexport: boolean
  /** `import type`, or every name marked `type`: names a type, loads nothing. */
  typeOnly: boolean
  /** Only for `import(` whose argument is not one string literal: the code from the call on, for the message. */
  nonLiteral?: string
  /** 1-based line of the import. */
  line: number
}

/** Marks a non-literal `import(` as intended: `// layering: dynamic import — <reason>`, on its line or the line above. */
export const DYNAMIC_IMPORT_ALLOW = /layering: dynamic import\s+[—-]+\s*\S.{3,}/

const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'in', 'of', 'void', 'delete', 'throw', 'new', 'else', 'yield', 'await', 'instanceof'])

/** `text` with comments and regular-expression bodies replaced by spaces (line breaks kept). */
export function blankComments(text: string): string {
  const out = text.split('')
  const templates: number[] = [] // brace depth at which each open template's `${` began
  let depth = 0
  let i = 0
  let lastSignificant = ''
  let lastWord = ''
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' '
  }
  const skipString = (quote: string) => {
    let k = i + 1
    while (k < text.length && text[k] !== quote && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1
    return k + 1
  }
  /** From inside a template's text: the index after its closing backtick, or of the `${` opening. */
  const skipTemplateText = (from: number): { end: number; opensExpression: boolean } => {
    let k = from
    while (k < text.length) {
      if (text[k] === '\\') k += 2
      else if (text[k] === '`') return { end: k + 1, opensExpression: false }
      else if (text[k] === '$' && text[k + 1] === '{') return { end: k + 2, opensExpression: true }
      else k++
    }
    return { end: k, opensExpression: false }
  }
  const enterTemplateText = (from: number) => {
    const { end, opensExpression } = skipTemplateText(from)
    if (opensExpression) templates.push(depth++)
    i = end
    lastSignificant = '`'
  }
  while (i < text.length) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i)
      blank(i, end === -1 ? text.length : end)
      i = end === -1 ? text.length : end
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      blank(i, end === -1 ? text.length : end + 2)
      i = end === -1 ? text.length : end + 2
    } else if (c === "'" || c === '"') {
      i = skipString(c)
      lastSignificant = c
    } else if (c === '`') {
      enterTemplateText(i + 1)
    } else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      templates.pop()
      depth--
      enterTemplateText(i + 1)
    } else if (c === '/' && (lastSignificant === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant) || REGEX_AFTER_WORD.has(lastWord))) {
      let k = i + 1
      let inClass = false
      while (k < text.length && text[k] !== '\n' && (inClass || text[k] !== '/')) {
        if (text[k] === '\\') k++
        else if (text[k] === '[') inClass = true
        else if (text[k] === ']') inClass = false
        k++
      }
      blank(i + 1, k)
      i = k + 1
      lastSignificant = '/'
      lastWord = ''
    } else {
      if (c === '{') depth++
      else if (c === '}') depth--
      if (/\s/.test(c)) {
        i++
        continue
      }
      if (/[\w$]/.test(c)) {
        let k = i
        while (k < text.length && /[\w$]/.test(text[k]!)) k++
        lastWord = text.slice(i, k)
        lastSignificant = 'a'
        i = k
        continue
      }
      lastSignificant = c
      lastWord = ''
      i++
    }
  }
  return out.join('')
}

const STATIC = /(?:^|[\n;}])[ \t]*(import|export)\s+(type\s+)?([\w$*{},\s]*?)\bfrom\s*(['"])([^'"\n]+)\4/g
const SIDE_EFFECT = /(?:^|[\n;}])[ \t]*import\s*(['"])([^'"\n]+)\1/g
const DYNAMIC = /(?<![\w$.])import\s*\(/g
const LITERAL_ARGUMENT = /^\s*(['"])([^'"\n]+)\1\s*[,)]/

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length

/** Every import of one file's source text. */
export function readImports(source: string): SourceImport[] {
  const code = blankComments(source)
  const found: SourceImport[] = []
  for (const match of code.matchAll(STATIC)) {
    const names = /^\s*\{([^}]*)\}\s*$/.exec(match[3]!)?.[1]?.split(',').map((name) => name.trim()).filter((name) => name !== '')
    const typeOnly = match[2] !== undefined || (names !== undefined && names.length > 0 && names.every((name) => name.startsWith('type ')))
    found.push({ specifier: match[5]!, reexport: match[1] === 'export', typeOnly, line: lineAt(code, match.index + match[0].indexOf(match[1]!)) })
  }
  for (const match of code.matchAll(SIDE_EFFECT)) {
    found.push({ specifier: match[2]!, reexport: false, typeOnly: false, line: lineAt(code, match.index + match[0].indexOf('import')) })
  }
  const lines = source.split('\n')
  for (const match of code.matchAll(DYNAMIC)) {
    const argument = code.slice(match.index + match[0].length)
    const line = lineAt(code, match.index)
    const literal = LITERAL_ARGUMENT.exec(argument)
    if (literal !== null) {
      found.push({ specifier: literal[2]!, reexport: false, typeOnly: false, line })
      continue
    }
    const allowed = [lines[line - 1], lines[line - 2]].some((text) => text !== undefined && DYNAMIC_IMPORT_ALLOW.test(text))
    if (!allowed) found.push({ specifier: '', reexport: false, typeOnly: false, nonLiteral: code.slice(match.index, match.index + 60).split('\n')[0]!, line })
  }
  return found
}
