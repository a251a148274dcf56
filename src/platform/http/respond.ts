/** Writing the pages' answers: a rendered page, JSON, an RFC 9457 problem, a redirect after a form, a `Reply`. */
import type { ServerResponse } from 'node:http'
import { problem } from '../../wire/index.js'
import { renderHtmlPage, type HtmlPage } from '../html/index.js'
import { JSON_TYPE, type Reply } from './replies.js'

export function sendHtmlPage(res: ServerResponse, status: number, page: HtmlPage, headers: Record<string, string> = {}): void {
  const { html, headers: pageHeaders } = renderHtmlPage(page)
  res.writeHead(status, { ...pageHeaders, ...headers }).end(html)
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body))
}

export function sendProblem(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/problem+json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(problem(status, detail)))
}

/** 303: the browser follows with a GET, so reloading the next page never repeats the form. */
export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' }).end()
}

/** A `Reply` (replies.ts) on node:http, never cached; `headers` add to the reply's own. */
export function sendReply(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  res.writeHead(reply.status, { 'content-type': reply.contentType ?? JSON_TYPE, 'cache-control': 'no-store', ...reply.headers, ...headers }).end(reply.body)
}
