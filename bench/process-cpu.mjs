// CPU time of processes, from /proc: what a bench's workers and its database spent.
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds (user + system) of a process and its threads so far, and of its children that ended (a database's closed connections). */
export const cpuSeconds = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
};

/** The CPU seconds of every process whose command line names `word` (the PostgreSQL server's processes). */
export const cpuOfCommand = (word) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .reduce((sum, pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word) ? sum + cpuSeconds(pid) : sum;
      } catch {
        return sum;
      }
    }, 0);
