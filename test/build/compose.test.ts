/**
 * compose.yaml read as compose reads it, without a container engine (`npm run image:check` runs the real
 * `docker compose config` where there is one): every volume, secret, network, dependency and bind-mounted
 * file a service names exists; the `fleet` profile is the shape docs/running.md describes (replicas on
 * volumes of their own from one snapshot, behind the official nginx image running the repo's
 * configuration, which trusts it for X-Forwarded-For); and that configuration, rendered as the image
 * renders it, passes `nginx -t` where nginx is installed.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { checkNginx, findNginx, FLEET_TEMPLATE, NGINX_INSTALL_HINT, renderFleetConfig, writeFleetNginx } from '../../bench/lib/nginx-fleet.js'
import { repoRoot } from '../../src/devnet/testing/index.js'
import { parseComposeYaml, type Yaml } from './compose-file.js'

type Service = Record<string, Yaml>
const compose = parseComposeYaml(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8'))
const services = compose.services as Record<string, Service>
const keys = (value: Yaml | undefined) => (value === undefined ? [] : Array.isArray(value) ? value.map(String) : Object.keys(value as object))
const list = (value: Yaml | undefined) => (value === undefined ? [] : (value as Yaml[]).map(String))
const env = (service: Service) => (service.environment ?? {}) as Record<string, string>
const profiles = (service: Service) => list(service.profiles)
const template = readFileSync(join(repoRoot, FLEET_TEMPLATE), 'utf8')

test('every volume, secret, network, dependency and bind-mounted file a service of compose.yaml names exists', () => {
  assert.ok(Object.keys(services).length >= 12, Object.keys(services).join(', '))
  for (const [name, service] of Object.entries(services)) {
    for (const volume of list(service.volumes)) {
      const source = volume.split(':')[0]!
      if (source.startsWith('./')) assert.ok(existsSync(join(repoRoot, source)), `${name}: ${source} is not in the repository`)
      else assert.ok(keys(compose.volumes).includes(source), `${name}: volume ${source} is not declared`)
    }
    for (const secret of list(service.secrets)) {
      const file = ((compose.secrets as Record<string, Record<string, string>>)[secret] ?? {}).file
      assert.ok(file?.startsWith('./secrets/'), `${name}: secret ${secret} is not declared as a file under ./secrets`)
    }
    for (const network of keys(service.networks)) assert.ok(keys(compose.networks).includes(network), `${name}: network ${network} is not declared`)
    for (const dependency of keys(service.depends_on)) {
      assert.ok(services[dependency], `${name} depends on ${dependency}, which is no service`)
      // A service that starts without a profile cannot wait for one that only a profile starts.
      const theirs = profiles(services[dependency]!)
      assert.ok(theirs.length === 0 || theirs.some((p) => profiles(service).includes(p)), `${name} depends on ${dependency} of profile ${theirs.join(',')}`)
    }
  }
})

test('the fleet profile: two explorer replicas, each on its own volume from one snapshot, behind the official nginx running deploy/nginx', () => {
  const fleet = Object.entries(services).filter(([, s]) => profiles(s).includes('fleet'))
  const replicas = fleet.filter(([, s]) => s.image === 'settlement-explorer' && env(s).SNAPSHOT_FROM)
  assert.ok(replicas.length >= 2, `replicas: ${replicas.map(([n]) => n).join(', ')}`)
  const dataVolumes = replicas.map(([, s]) => list(s.volumes).find((v) => v.endsWith(':/data'))?.split(':')[0])
  assert.equal(new Set(dataVolumes).size, replicas.length, `each replica its own /data volume: ${dataVolumes.join(', ')}`)

  // The snapshot the replicas start from is written by a one-shot service on a volume they all mount.
  const [snapshotName, snapshotService] = fleet.find(([, s]) => String(s.entrypoint ?? '').includes(' snapshot '))!
  const snapshotVolume = list(snapshotService.volumes).find((v) => v.split(':')[1] === '/snapshots')!.split(':')[0]
  for (const [name, replica] of replicas) {
    assert.match(env(replica).SNAPSHOT_FROM!, /\/snapshots\/current\}$/, `${name}: SNAPSHOT_FROM`)
    assert.ok(list(replica.volumes).includes(`${snapshotVolume}:/snapshots:ro`), `${name} mounts the snapshot volume read-only`)
    assert.equal((replica.depends_on as Record<string, Record<string, string>>)[snapshotName]?.condition, 'service_completed_successfully')
    // Healthy (and so routed to by the proxy's start) only when caught up.
    assert.equal(env(replica).HEALTHCHECK_URL, 'http://127.0.0.1:4001/ready')
  }

  const [proxyName, proxy] = fleet.find(([, s]) => String(s.image).startsWith('docker.io/library/nginx:'))!
  assert.ok(list(proxy.volumes).includes(`./${FLEET_TEMPLATE}:/etc/nginx/templates/default.conf.template:ro`), `${proxyName} runs the repo's configuration`)
  const settings = env(proxy)
  assert.equal(settings.NGINX_ENVSUBST_FILTER, '^FLEET_', 'only FLEET_* is substituted (nginx variables such as $host stay)')
  const placeholders = new Set([...template.matchAll(/\$\{(FLEET_\w+)\}/g)].map((m) => m[1]))
  assert.deepEqual([...placeholders].sort(), Object.keys(settings).filter((k) => k.startsWith('FLEET_')).sort(), 'every placeholder has a setting and every setting a placeholder')
  const upstreams = Object.entries(settings).filter(([k]) => /^FLEET_REPLICA_\d+$/.test(k)).map(([, v]) => v)
  assert.deepEqual(upstreams.sort(), replicas.map(([n]) => `${n}:4001`).sort())
  for (const [name] of replicas) assert.equal((proxy.depends_on as Record<string, Record<string, string>>)[name]?.condition, 'service_healthy')
  assert.ok(list(proxy.volumes).some((v) => v.endsWith(`:${settings.FLEET_CACHE_DIR}`)), 'the cache directory is a volume')

  // The replicas trust the proxy's address for X-Forwarded-For (then a CDN's ranges, when set), on a network of their own with it.
  const address = ((proxy.networks as Record<string, Record<string, string>>).fleet ?? {}).ipv4_address
  for (const [name, replica] of replicas) {
    assert.equal(env(replica).TRUSTED_PROXIES!.split(' ')[0], address, `${name}: TRUSTED_PROXIES`)
    assert.deepEqual(keys(replica.networks), ['fleet'])
  }
})

test('the fleet template refuses a placeholder without a setting (nginx would read it as a variable)', () => {
  assert.throws(() => renderFleetConfig(template, { FLEET_LISTEN: '8080', FLEET_REPLICA_1: 'a:1', FLEET_CACHE_DIR: '/c' } as never), /FLEET_REPLICA_2/)
})

test('nginx -t passes on the shipped fleet configuration (skipped only on a machine without nginx installed)', (t) => {
  const nginx = findNginx()
  if (!nginx) return void t.skip(NGINX_INSTALL_HINT)
  const prefix = mkdtempSync(join(tmpdir(), 'fleet-nginx-'))
  try {
    // nginx -t resolves the upstreams' names: the compose names are the containers', so loopback stands in.
    const main = writeFleetNginx(prefix, join(repoRoot, FLEET_TEMPLATE), { FLEET_LISTEN: '127.0.0.1:8080', FLEET_REPLICA_1: '127.0.0.1:4001', FLEET_REPLICA_2: '127.0.0.1:4002', FLEET_CACHE_DIR: join(prefix, 'cache') })
    const checked = checkNginx(nginx, prefix, main)
    assert.ok(checked.ok, checked.output)
    // …and the check is one: a directive nginx does not know fails it.
    const broken = writeFleetNginx(join(prefix, 'broken'), join(repoRoot, FLEET_TEMPLATE), { FLEET_LISTEN: '8080;\n    proxy_cache_lock maybe', FLEET_REPLICA_1: '127.0.0.1:4001', FLEET_REPLICA_2: '127.0.0.1:4002', FLEET_CACHE_DIR: join(prefix, 'cache') })
    assert.equal(checkNginx(nginx, join(prefix, 'broken'), broken).ok, false)
  } finally {
    rmSync(prefix, { recursive: true, force: true })
  }
})
