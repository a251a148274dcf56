/**
 * The import reader of the layering check (read-imports.ts) on the code that trips simple readers: quotes
 * and comment markers inside regular expressions, strings and templates, divisions, type-only imports.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readImports } from './read-imports.js'

const specifiers = (source: string) => readImports(source).map(({ specifier }) => specifier)

test('quotes and comment markers inside regular expressions, strings and templates hide no import', () => {
  assert.deepEqual(specifiers("const re = /['\"]\\/\\*[/]/g\nimport { a } from './a.js'\n"), ['./a.js'])
  assert.deepEqual(specifiers("const url = 'http://x/*'\nimport { b } from './b.js'\n"), ['./b.js'])
  assert.deepEqual(specifiers("const t = `x ${'}'} ${`/*`} y`\nimport { c } from './c.js'\n"), ['./c.js'])
  assert.deepEqual(specifiers("const half = a / b / 2\nimport { d } from './d.js'\n"), ['./d.js'])
  assert.deepEqual(specifiers("const glob = '**/*.ts'\nexport * from './e.js'\n"), ['./e.js'])
})

test('imports written across lines, side-effect imports and literal import() are read', () => {
  assert.deepEqual(specifiers("import {\n  a,\n  type B,\n} from './a.js'\nimport './polyfill.js'\nconst m = await import('./lazy.js')\n"), ['./a.js', './polyfill.js', './lazy.js'])
})

test('type-only imports and re-exports are told from the others', () => {
  const read = readImports("import type { A } from './a.js'\nimport { type B } from './b.js'\nimport { type C, d } from './c.js'\nexport type { E } from './e.js'\nexport { f } from './f.js'\n")
  assert.deepEqual(read.map(({ specifier, typeOnly, reexport }) => [specifier, typeOnly, reexport]), [
    ['./a.js', true, false],
    ['./b.js', true, false],
    ['./c.js', false, false],
    ['./e.js', true, true],
    ['./f.js', false, true],
  ])
})

test('a computed import() is marked, unless a comment above or beside it gives the reason', () => {
  assert.equal(readImports('const m = await import(name)\n')[0]?.nonLiteral, 'import(name)')
  assert.deepEqual(readImports('// layering: dynamic import — the operator names the module\nconst m = await import(name)\n'), [])
  assert.equal(readImports('// layering: dynamic import —\nconst m = await import(name)\n').length, 1, 'a reason is required')
})
