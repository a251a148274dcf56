/**
 * Building elements without HTML strings: every text goes through `textContent`, so nothing the explorer
 * serves (symbols come from token contracts anyone deploys) can become markup.
 */
type Child = Node | string | null | undefined | false

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  for (const child of children) if (child) element.append(child)
  return element
}

export function clear(element: Element): void {
  while (element.firstChild) element.firstChild.remove()
}
