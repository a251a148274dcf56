import assert from 'node:assert/strict'
import { test } from 'node:test'
import { queryEntries } from './parse-query.js'

test('query strings read as URLSearchParams reads them', () => {
  const strings = [
    '',
    'a=1',
    'recipient=0xAbC&limit=20&cursor=AQAAAAAAAQAAAAEaBc',
    'a=1&&b=2&',
    '&a',
    'a=&b',
    'a==b=c',
    '=x',
    'a=1&a=2',
    'x=%41%42&y=a+b',
    '%zz=1',
    '?a=1',
    'a=é&b=\u00ff',
    'a=%E2%82%AC',
    'a=%',
  ]
  for (const query of strings) assert.deepEqual([...queryEntries(query)], [...new URLSearchParams(query)], query)
})
