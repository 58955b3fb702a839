// The corpus vocabulary: a few hundred real customer-support words, then generated pseudo-words
// up to the requested size, ranked for a Zipf draw. Real words take the frequent ranks (as in
// real tickets), pseudo-words the long tail of rare terms (names, codes, jargon). No English
// stop words: to_tsvector drops them, and a query made only of them would match nothing.
import { type Random, rng, seedOf, zipf } from "./random.js";

const SUPPORT_WORDS = `
account access activate active address admin agent alert allow annual answer api app apply
approve archive attach attachment audit auth authorize automatic available backup balance bandwidth
bank banner beta bill billing block bounce branch broken browser bug build bulk button cache calendar
call cancel cancellation capacity card cart certificate change channel charge chargeback chat checkout
client close cloud code comment company complaint config configure confirm connect connection
contact contract cookie copy corrupt cost coupon crash create credential credit csv currency customer
dashboard data database deadline debit decline declined default delay delete deliver delivery deploy
deposit device disable discount disconnect dispute dns document domain download downgrade draft
duplicate edit email enable encrypt endpoint engineer enterprise error escalate escalation estimate
event expire expired export extension fail failed failure feature fee feedback field file filter
firewall fix folder form format forward fraud free freeze gateway group guest hardware header help
history hold holiday hosting identity import inbox incident install installation integration
internal invalid invite invoice issue item key label language latency launch layout lead legal license
limit link list load locale lock locked log login logout loss mailbox maintenance manager manual map
member merge message method migrate migration mobile monitor monthly network notification number
offline onboarding open order outage overcharge owner package page paid partner password patch
pay payment pending permission phone pin plan platform policy portal premium price pricing print
priority privacy product profile promo provider purchase query queue quota quote rate receipt record
recover recurring redirect refund region register reinstall reject release reminder remote renew
renewal replace reply report request reset resolve response restore retry return review role
router sale schedule screen search secure security seat server service session settings setup share
shipment shipping signature signup slow sms software spam speed ssl status storage subscription
support survey suspend sync system tax team template tenant terminal test ticket timeout token
tracking trade transaction transfer trial troubleshoot unable unlock update upgrade upload urgent
usage user vendor verify version video voicemail voucher wallet warehouse warranty webhook website
widget wifi window wire workflow workspace zone`;

const ONSETS = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"];

export interface Vocabulary {
  /** Words by rank: index 0 is the most frequent. */
  words: string[];
  /** Draws a rank by Zipf(s). */
  rank: (random: Random) => number;
  /** How many leading ranks are real words. */
  realWords: number;
}

export function buildVocabulary(seed: number, size: number, exponent: number): Vocabulary {
  const real = SUPPORT_WORDS.split(/\s+/).filter(Boolean);
  const random = rng(seedOf(seed, "vocabulary"));
  // Real words in a seeded order, so which ones are most frequent depends on the seed only.
  for (let i = real.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [real[i], real[j]] = [real[j] as string, real[i] as string];
  }
  const seen = new Set(real);
  const words = [...real];
  while (words.length < size) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < syllables; i++) {
      word += ONSETS[Math.floor(random() * ONSETS.length)];
      word += VOWELS[Math.floor(random() * VOWELS.length)];
    }
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return { words: words.slice(0, size), rank: zipf(size, exponent), realWords: real.length };
}

/** A text of n words drawn by Zipf frequency. */
export function sentence(vocabulary: Vocabulary, random: Random, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(vocabulary.words[vocabulary.rank(random)] as string);
  return out.join(" ");
}
