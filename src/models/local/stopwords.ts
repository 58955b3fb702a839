// English function words, left out of the local embedder's mean (they carry no topic and would
// pull every text toward the same point): the Snowball project's English stop list (BSD), with
// the pieces its contractions split into under wordTokens ("don't" → don, t).
export const STOPWORDS: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
  her hers herself it its itself they them their theirs themselves what which who whom this that
  these those am is are was were be been being have has had having do does did doing would should
  could ought a an the and but if or because as until while of at by for with about against
  between into through during before after above below to from up down in out on off over under
  again further then once here there when where why how all any both each few more most other
  some such no nor not only own same so than too very s t d ll m o re ve y can will just don
  didn doesn hadn hasn haven isn mustn needn shan shouldn wasn weren won wouldn aren couldn let
  ain ma`.split(/\s+/),
);
