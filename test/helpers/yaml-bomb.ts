/**
 * A small definition that stands for millions of values: a list of `values` addresses under an
 * anchor, and `aliases` targets whose urls alias it (200,000 and 99: 1.69 MB, 99 aliases, 20
 * million values once expanded).
 */
export function aliasBomb(values = 200_000, aliases = 99): string {
  const list = Array.from({ length: values }, (_, i) => `u${i}`).join(', ');
  const targets = Array.from({ length: aliases }, () => '  - {type: scrape, urls: *a}\n').join('');
  return `x-a: &a [${list}]\nname: Bomb\nschedule: {cron: "0 * * * *"}\ntargets:\n${targets}`;
}
