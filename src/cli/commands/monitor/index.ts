import { Command } from 'commander';
import type { Runtime } from '../../context.js';
import {
  applyCommand,
  checkCommand,
  checksCommand,
  createCommand,
  diffCommand,
  exportCommand,
  getCommand,
  historyCommand,
  listCommand,
  reportCommand,
  runCommand,
  stateCommand,
} from './commands.js';
import { validateCommand } from './validate.js';

export function monitorCommand(runtime: Runtime): Command {
  return new Command('monitor')
    .description('monitors: validate, apply and export YAML definitions, list, pause, resume, delete')
    .addCommand(validateCommand(runtime))
    .addCommand(applyCommand(runtime))
    .addCommand(diffCommand(runtime))
    .addCommand(createCommand(runtime))
    .addCommand(listCommand(runtime))
    .addCommand(getCommand(runtime))
    .addCommand(exportCommand(runtime))
    .addCommand(stateCommand(runtime, 'pause'))
    .addCommand(stateCommand(runtime, 'resume'))
    .addCommand(stateCommand(runtime, 'delete'))
    .addCommand(runCommand(runtime))
    .addCommand(checksCommand(runtime))
    .addCommand(checkCommand(runtime))
    .addCommand(historyCommand(runtime))
    .addCommand(reportCommand(runtime));
}
