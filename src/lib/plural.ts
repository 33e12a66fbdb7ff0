/** `1 page`, `2 pages`: a count with its noun in the number it takes (`many` for irregular plurals). */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
