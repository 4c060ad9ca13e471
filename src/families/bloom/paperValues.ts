/**
 * Table 1 of the APBF paper (Shtul, Baquero, Almeida, §4.2, "Metrics for Bloom filters for
 * different maximum false positive rates"), as printed: a partitioned filter planned to stop
 * inserting at fill r = 1/2.
 */
export interface Table1Printed {
  aimedFp: number;
  k: number;
  bitsPerItem: number;
  actualFp: number;
  accessesTrue: number;
  accessesFalse: number;
}

export const TABLE1_PRINTED: readonly Table1Printed[] = [
  { aimedFp: 0.1, k: 4, bitsPerItem: 5.77, actualFp: 0.0625, accessesTrue: 4.0, accessesFalse: 1.73 },
  { aimedFp: 0.01, k: 7, bitsPerItem: 10.09, actualFp: 0.0078125, accessesTrue: 7.0, accessesFalse: 1.94 },
  { aimedFp: 0.001, k: 10, bitsPerItem: 14.42, actualFp: 0.0009765625, accessesTrue: 10.0, accessesFalse: 1.99 },
  { aimedFp: 0.0001, k: 14, bitsPerItem: 20.19, actualFp: 0.0000610351, accessesTrue: 14.0, accessesFalse: 2.0 },
  { aimedFp: 0.00001, k: 17, bitsPerItem: 24.52, actualFp: 0.0000076293, accessesTrue: 17.0, accessesFalse: 2.0 },
];

/** Digits the table prints per column (the precision the comparison uses). */
export const TABLE1_DIGITS = { bitsPerItem: 2, actualFp: 10, accessesTrue: 2, accessesFalse: 2 } as const;
