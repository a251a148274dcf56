import assert from 'node:assert/strict'
import { test } from 'node:test'
import { csvCell } from './csv-cell.js'

test('text a spreadsheet would run as a formula gets an apostrophe in front; numbers and plain text stay as they are', () => {
  assert.equal(csvCell('=HYPERLINK("http://evil.example","open")'), `"'=HYPERLINK(""http://evil.example"",""open"")"`)
  assert.equal(csvCell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0")
  assert.equal(csvCell('@SUM(1+1)'), "'@SUM(1+1)")
  assert.equal(csvCell('-2+3'), "'-2+3")
  assert.equal(csvCell('\tx'), "'\tx")
  assert.equal(csvCell('\r=1'), `"'\r=1"`)
  assert.equal(csvCell("'=1"), "''=1")
  assert.equal(csvCell('-5'), '-5')
  assert.equal(csvCell('-1.50'), '-1.50')
  assert.equal(csvCell(-7), '-7')
  assert.equal(csvCell(12n), '12')
  assert.equal(csvCell('1.000000'), '1.000000')
  assert.equal(csvCell('0xabc'), '0xabc')
  assert.equal(csvCell('order 7 = paid'), 'order 7 = paid')
  assert.equal(csvCell('a,"b" ü'), '"a,""b"" ü"')
  assert.equal(csvCell(null), '')
  assert.equal(csvCell(undefined), '')
})

test('the documented way back, dropping one leading apostrophe, gives the text again, whatever it was', () => {
  const read = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell)
  const texts = ['=1+1', '+x', '-x', '@x', '\tx', '\rx', "'", "'=x", "''", 'plain', '-5', '', 'a,"b"']
  for (const text of texts) {
    const cell = csvCell(text)
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell
    assert.equal(read(unquoted), text, JSON.stringify(text))
  }
})
