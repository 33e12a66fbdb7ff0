import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { renderRows } from '../../ui/table.js';
import { withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';

const UNLIMITED = 2_147_483_647;
const number = (n: number | null) => (n === null ? '?' : n.toLocaleString('en-US'));
const left = (remaining: number | null, plan: number | null) =>
  remaining === null || (plan === null && remaining >= UNLIMITED) ? 'no limit' : `${number(remaining)} left${plan !== null ? ` of ${number(plan)}` : ''}`;

export async function runUsage(context: CommandContext): Promise<ExitCode> {
  return withBackend(context, 'reading usage', async (backend) => {
    const report = await backend.usage.report();
    const { output } = context;
    if (output.json) return (output.jsonDocument(report), EXIT.ok);
    const period = `${report.periodStart.slice(0, 10)} to ${report.periodEnd.slice(0, 10)}`;
    output.data(
      [
        `this month (${period}):`,
        `  credits: ${number(report.credits.used)} used, ${left(report.credits.remaining, report.credits.plan)}`,
        `  tokens:  ${number(report.tokens.used)} used, ${left(report.tokens.remaining, report.tokens.plan)}`,
      ].join('\n'),
    );
    if (report.months.length > 0) {
      output.data('');
      output.data(
        await renderRows(
          output,
          ['month', 'credits', 'tokens'],
          report.months.map((m) => [(m.startDate ?? '').slice(0, 7), String(m.creditsUsed), String(m.tokensUsed)]),
        ),
      );
    }
    return EXIT.ok;
  });
}
