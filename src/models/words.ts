// Words as the offline embedders see them: lowercased Unicode letter and digit runs after NFKC
// normalization ("Café-Bar 42" → café, bar, 42), the same for every text in every process.

export function wordTokens(text: string): string[] {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}
