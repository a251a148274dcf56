/**
 * `npm run bench:ab -- --baseline=<commit> --only=ingest,footprint --sizes=1000000`: the same sections
 * run on an older tree (a git worktree of <commit>, kept under .data/bench/) and on this one, section by
 * section in turn, on the same synthetic chain: a store layout measured beside the one it replaces in one
 * run, as issue 39 asks until the new layout is decided. Each tree builds its own stores (the cache is
 * keyed by layout). The report holds both halves of each section, baseline first.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { describeMachine, load1 } from './lib/machine.js'

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    only: { type: 'string' },
    sizes: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: '.data/bench/RESULTS-ab.md' },
  },
})
if (!values.baseline || !values.only) {
  console.error('usage: npm run bench:ab -- --baseline=<commit> --only=<sections> [--sizes=1000000] [--out=file]')
  process.exit(2)
}

const here = resolve('.')
const baselineCommit = execFileSync('git', ['rev-parse', '--short', values.baseline], { encoding: 'utf8' }).trim()
const baselineTree = resolve(`.data/bench/baseline-${baselineCommit}`)
if (!existsSync(baselineTree)) {
  execFileSync('git', ['worktree', 'add', '--detach', baselineTree, baselineCommit], { stdio: 'inherit' })
  symlinkSync(join(here, 'node_modules'), join(baselineTree, 'node_modules'))
}

const parts = resolve('.data/bench/ab')
mkdirSync(parts, { recursive: true })
const machine = describeMachine()
const started = new Date().toISOString()
const sections: string[] = []
for (const section of values.only.split(',')) {
  for (const [name, tree] of [[`baseline ${baselineCommit}`, baselineTree], [`this tree ${machine.commit}`, here]] as const) {
    const out = join(parts, `${section}-${tree === here ? 'new' : 'old'}.md`)
    const args = ['bench/run.ts', `--only=${section}`, `--seed=${values.seed}`, `--out=${out}`, ...(values.sizes ? [`--sizes=${values.sizes}`] : [])]
    console.log(`[bench:ab] ${section} on ${name} (load ${load1()})`)
    const run = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: tree, stdio: 'inherit' })
    const report = existsSync(out) ? readFileSync(out, 'utf8') : `**failed** (exit ${run.status})`
    // Each half under a heading of its own, its headings one level down.
    sections.push(`## ${section} — ${name}\n\n${report.replace(/^# .*\n/, '').replace(/^(#+) /gm, '#$1 ')}`)
    writeFileSync(values.out, header() + sections.join('\n'))
  }
}

function header(): string {
  return (
    `# A/B: store layouts side by side\n\n- Started: ${started}; command: \`npm run bench:ab -- ${process.argv.slice(2).join(' ')}\`\n` +
    `- Baseline: commit ${baselineCommit} (worktree ${baselineTree}); this tree: commit ${machine.commit}\n` +
    `- Machine: ${machine.nproc} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}; each section ran on the baseline, then on this tree\n\n`
  )
}
