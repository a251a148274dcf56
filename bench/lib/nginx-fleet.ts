/**
 * The fleet's nginx (deploy/nginx/explorer-fleet.conf.template) outside a container: rendered as the
 * official image renders it (each `${FLEET_*}` from the given settings, nothing else touched) into a
 * prefix directory with a small main configuration around it, so that the bench runs the very file
 * compose ships and the test checks it with `nginx -t`. nginx comes from Debian's package, as wrk does.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join, resolve } from 'node:path'

export const FLEET_TEMPLATE = 'deploy/nginx/explorer-fleet.conf.template'
export const NGINX_INSTALL_HINT = 'nginx is not installed: install it with `apt-get install -y nginx` (Debian/Ubuntu; the package\'s service need not run)'

export interface FleetSettings {
  FLEET_LISTEN: string
  FLEET_REPLICA_1: string
  FLEET_REPLICA_2: string
  FLEET_CACHE_DIR: string
}

/** The nginx binary (Debian puts it in /usr/sbin, off a normal user's PATH), or undefined when there is none. */
export function findNginx(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    if (!spawnSync(candidate, ['-v']).error) return candidate
  }
  return undefined
}

/** The template with every `${FLEET_*}` replaced; a placeholder without a setting throws (nginx would read it as a variable). */
export function renderFleetConfig(template: string, settings: FleetSettings): string {
  return template.replace(/\$\{(FLEET_\w+)\}/g, (_, name: string) => {
    const value = (settings as unknown as Record<string, string | undefined>)[name]
    if (value === undefined) throw new Error(`${FLEET_TEMPLATE}: no setting for \${${name}}`)
    return value
  })
}

/** Writes `prefix`/nginx.conf (the main file) and `prefix`/explorer-fleet.conf (the rendered template); returns the main file's path. */
export function writeFleetNginx(prefixDir: string, templatePath: string, settings: FleetSettings): string {
  const prefix = resolve(prefixDir)
  for (const dir of [join(prefix, 'logs'), join(prefix, 'temp'), settings.FLEET_CACHE_DIR]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(prefix, 'explorer-fleet.conf'), renderFleetConfig(readFileSync(templatePath, 'utf8'), settings))
  const main = join(prefix, 'nginx.conf')
  // Run as root (the bench machine's user), workers stay root: the default `nobody` could not enter a 0700 temp directory.
  const user = process.getuid?.() === 0 ? 'user root;\n' : ''
  writeFileSync(
    main,
    `${user}worker_processes 1;\npid ${join(prefix, 'nginx.pid')};\nerror_log ${join(prefix, 'logs/error.log')} warn;\nevents { worker_connections 4096; }\n` +
      `http {\n  access_log off;\n  client_body_temp_path ${join(prefix, 'temp/body')};\n  proxy_temp_path ${join(prefix, 'temp/proxy')};\n` +
      `  fastcgi_temp_path ${join(prefix, 'temp/fastcgi')};\n  uwsgi_temp_path ${join(prefix, 'temp/uwsgi')};\n  scgi_temp_path ${join(prefix, 'temp/scgi')};\n` +
      `  include ${join(prefix, 'explorer-fleet.conf')};\n}\n`,
  )
  return main
}

/** `nginx -t` on a main file: its exit code and what it printed. */
export function checkNginx(nginx: string, prefix: string, main: string): { ok: boolean; output: string } {
  const result = spawnSync(nginx, ['-t', '-p', resolve(prefix), '-c', main], { encoding: 'utf8' })
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() }
}

/** Runs nginx in the foreground on `main` until stop(); resolves once `port` accepts connections. */
export async function startFleetNginx(nginx: string, prefix: string, main: string, port: number): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(nginx, ['-p', resolve(prefix), '-c', main, '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode} (see ${join(prefix, 'logs/error.log')})`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.end() !== undefined)).once('error', () => resolve(false))
    })
    if (open) break
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} within 10 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT')
      await exited
    },
  }
}
