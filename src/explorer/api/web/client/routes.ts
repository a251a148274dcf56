/**
 * The page's views and their addresses in the URL fragment, so a view can be bookmarked, shared and
 * reloaded, and Back works, without the server knowing any of them.
 */
export type Route =
  | { view: 'feed' }
  | { view: 'tx'; txHash: string }
  | { view: 'order'; orderReference: string }
  | { view: 'address'; address: string }
  /** Settlements by filters, one keyset page at a time: `#/events?token=…&cursor=…`. */
  | { view: 'events'; params: URLSearchParams }

export function parseRoute(hash: string): Route {
  const events = /^#\/events(?:\?(.*))?$/.exec(hash)
  if (events) return { view: 'events', params: new URLSearchParams(events[1] ?? '') }
  const [, view, value = ''] = /^#\/([a-z]+)\/(.*)$/.exec(hash) ?? []
  if (view === 'tx') return { view, txHash: value.toLowerCase() }
  if (view === 'order') return { view, orderReference: value.toLowerCase() }
  if (view === 'address') return { view, address: value.toLowerCase() }
  return { view: 'feed' }
}

export function routeHref(route: Route): string {
  switch (route.view) {
    case 'feed':
      return '#/'
    case 'tx':
      return `#/tx/${route.txHash}`
    case 'order':
      return `#/order/${route.orderReference}`
    case 'address':
      return `#/address/${route.address}`
    case 'events': {
      const query = route.params.toString()
      return query ? `#/events?${query}` : '#/events'
    }
  }
}
