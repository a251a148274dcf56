/** What the demo store sells: prices in display units of the store's token (parsed with its decimals). */
export interface Product {
  id: string
  name: string
  description: string
  /** e.g. "12.00" */
  price: string
}

export const catalog: readonly Product[] = [
  { id: 'coffee', name: 'Coffee beans, 250 g', description: 'Single-origin, roasted this week.', price: '12.00' },
  { id: 'mug', name: 'Ceramic mug', description: 'Holds 300 ml; dishwasher safe.', price: '18.50' },
  { id: 'notebook', name: 'Dot-grid notebook', description: 'A5, 120 pages.', price: '6.00' },
]

export const findProduct = (id: string) => catalog.find((product) => product.id === id)
