import { Command } from 'commander';
import type { Runtime } from '../../context.js';
import { validateCommand } from './validate.js';

export function monitorCommand(runtime: Runtime): Command {
  return new Command('monitor')
    .description('monitor definitions: validate YAML against the v2 interface')
    .addCommand(validateCommand(runtime));
}
