/**
 * `/bench/static/:bytes`: a JSON page of that size, written as the explorer writes its answers — the
 * throughput ceiling each endpoint is compared with. Loaded by every server thread (ExplorerServices.appModule).
 */
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js'

const pages = new Map<number, Buffer>()

function staticPage(res: HttpResponse, bytes: number): void {
  let page = pages.get(bytes)
  if (!page) {
    page = Buffer.alloc(bytes, 'x')
    page.write('{"events":"', 0)
    page.write('"}', bytes - 2)
    pages.set(bytes, page)
  }
  res.cork(() => {
    res.writeStatus('200 OK')
    res.writeHeader('content-type', 'application/json; charset=utf-8')
    res.writeHeader('access-control-allow-origin', '*')
    res.end(page)
  })
}

export function configureApp(app: TemplatedApp): void {
  app.get('/bench/static/:bytes', (res, req) => staticPage(res, Math.max(16, Number(req.getParameter(0)) || 16)))
}
