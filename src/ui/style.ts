/**
 * Text styles. Colour comes from chalk, loaded only when a stream wants colour: importing chalk
 * costs about 20 ms of start-up, which pipes, scripts and CI should not pay.
 */

type Paint = (text: string) => string;

export interface Style {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

const same: Paint = (text) => text;

export const plainStyle: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same };

export async function colorStyle(): Promise<Style> {
  const { Chalk } = await import('chalk');
  return new Chalk({ level: 1 });
}
