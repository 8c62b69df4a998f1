// "Did you mean …?": the candidates closest to a mistyped word, by edit distance, for the CLI and the chat grammar alike.

/**
 * Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as one edit
 * (optimal string alignment): "prot" is one edit from "port", as a typist would judge it.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidates within reach of `word`, closest first: at most a third of the word's length away (at least 1,
 * at most 3 edits), so "--prot" finds "--port" but "--x" does not find everything.
 */
export function closest(word: string, candidates: readonly string[], limit = 3): string[] {
  const reach = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(word.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ distance }) => distance <= reach)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
