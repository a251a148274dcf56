/**
 * The explorer's page: the search box in the header and one view at a time in `<main>`, chosen by the URL
 * fragment (routes.ts). Leaving a view stops what it follows.
 */
import { addressView } from './address-view.js'
import { classifyQuery } from './classify-query.js'
import { clear } from './dom.js'
import { feedView } from './feed-view.js'
import { filterView } from './filter-view.js'
import { parseRoute, routeHref, type Route } from './routes.js'
import { settlementView } from './settlement-view.js'

const view = document.getElementById('view')!
const form = document.getElementById('search') as HTMLFormElement
const input = document.getElementById('search-input') as HTMLInputElement
const hint = document.getElementById('search-hint')!

let leave: (() => void) | undefined
/** Where the last search sent the page: arriving there keeps the typed text, any other move clears the box. */
let searchedHref: string | undefined

function show(route: Route): void {
  leave?.()
  clear(view)
  view.dataset.view = route.view
  switch (route.view) {
    case 'feed':
      leave = feedView(view)
      break
    case 'tx':
      leave = settlementView(view, { txHash: route.txHash })
      break
    case 'order':
      leave = settlementView(view, { orderReference: route.orderReference })
      break
    case 'address':
      leave = addressView(view, route.address)
      break
    case 'events':
      leave = filterView(view, route.params)
      break
  }
}

const describe = () => {
  const text = input.value.trim()
  return text === '' ? undefined : classifyQuery(text)
}

input.addEventListener('input', () => {
  const understood = describe()
  hint.textContent = understood?.label ?? ''
  hint.dataset.understood = understood?.route ? 'yes' : 'no'
})

form.addEventListener('submit', (event) => {
  event.preventDefault()
  const understood = describe()
  if (!understood) return
  hint.textContent = understood.route ? `Searching for ${understood.label.toLowerCase()}` : understood.label
  hint.dataset.understood = understood.route ? 'yes' : 'no'
  if (!understood.route) return
  const href = routeHref(understood.route)
  searchedHref = href
  if (location.hash === href) arrive()
  else location.hash = href
})

/** A view change: the hint spoke of the last search, so it goes; the text stays only where that search led. */
function arrive(): void {
  if (location.hash !== searchedHref) input.value = ''
  searchedHref = undefined
  hint.textContent = ''
  delete hint.dataset.understood
  show(parseRoute(location.hash))
}

window.addEventListener('hashchange', () => {
  arrive()
  view.focus()
})

show(parseRoute(location.hash))
