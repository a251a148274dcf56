/** The PermittedTransfer event of the settlement contract (src/explorer/indexer/decode-settlement-log.ts). */
export const SettlementAbi = [
  {
    type: 'event',
    name: 'PermittedTransfer',
    anonymous: false,
    inputs: [
      { name: 'domainSeparator', type: 'bytes32', indexed: true },
      { name: 'token', type: 'address', indexed: true },
      { name: 'payer', type: 'address', indexed: true },
      { name: 'recipient', type: 'address', indexed: false },
      { name: 'value', type: 'uint256', indexed: false },
      { name: 'fee', type: 'uint256', indexed: false },
      { name: 'orderReference', type: 'bytes32', indexed: false },
    ],
  },
] as const
