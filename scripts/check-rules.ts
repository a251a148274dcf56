/**
 * `npm run rules:check`: Prometheus' own tool on deploy/prometheus — `promtool check rules` on every rule
 * file, `promtool check config --syntax-only` on the scrape configuration (its certificate files exist
 * only in the container), and `promtool test rules` on the rule tests in deploy/prometheus/tests (series
 * over time, for the alerts on rates and `for` durations the live test cannot wait for). Not part of
 * `npm test`: promtool comes from Debian's `prometheus` package (apt-get install prometheus), which npm
 * does not install; without it this says so and exits 0. npm test checks the same queries' syntax and
 * metric names against the live pieces (test/monitoring/).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const dir = join(root, 'deploy/prometheus')
const filesIn = (sub: string, suffix: string) => readdirSync(join(dir, sub)).filter((f) => f.endsWith(suffix)).sort().map((f) => join(dir, sub, f))

if (spawnSync('sh', ['-c', 'command -v promtool']).status !== 0) {
  console.log('rules:check skipped: promtool is not installed (Debian: apt-get install prometheus)')
  process.exit(0)
}
const steps: [string, string[]][] = [
  ['check rules', ['check', 'rules', ...filesIn('rules', '.rules.yml')]],
  ['check config', ['check', 'config', '--syntax-only', join(dir, 'prometheus.yml')]],
  ['test rules', ['test', 'rules', ...filesIn('tests', '.test.yml')]],
]
let failed = 0
for (const [name, args] of steps) {
  const result = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' })
  process.stdout.write(result.stdout + result.stderr)
  console.log(`promtool ${name}: ${result.status === 0 ? 'passed' : `FAILED (exit ${result.status})`}`)
  if (result.status !== 0) failed++
}
const version = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]
console.log(`rules:check ${failed === 0 ? 'passed' : 'FAILED'} (${version})`)
process.exit(failed === 0 ? 0 : 1)
