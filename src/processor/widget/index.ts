/**
 * The checkout widget (PROCESSOR.md §5): the public payment pages of the checkout engine's charges, with
 * the payment link's QR code, the wallet's session call and the live status.
 */
export { startWidget, type RunningWidget, type WidgetServices } from './start-widget.js'
