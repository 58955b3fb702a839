// Records and queries that share meaning but no word (test/unit/models-local.test.ts and the
// local embedder's search test): the answer is the index of the record each query means.
export const SYNONYMS = {
  records: [
    "I parked the car in the garage overnight",
    "The doctor examined my swollen knee",
    "We bought groceries at the market",
    "The meeting moved to Tuesday afternoon",
  ],
  queries: [
    { query: "automobile", answer: 0 },
    { query: "physician", answer: 1 },
    { query: "shopping for food", answer: 2 },
    { query: "conference rescheduled", answer: 3 },
  ],
  /** sha256 of the float32 values of localEmbedding("The physician bought an automobile in Lisbon."). */
  digest: "02c7f59fcc6f4797de123ae1a52c8bfd1338a2211e8a0836848f9bc2b543bc8d",
} as const;
