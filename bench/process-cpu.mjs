// CPU time of processes, from /proc: what a bench's workers and its database spent.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Milliseconds a clock tick of /proc's CPU times stands for (CLK_TCK, 100 on Linux almost always). */
export const TICK_MS = 1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100);

/**
 * A process's (or thread's, from /proc/PID/task/TID/stat) parent and CPU ticks: its own (utime +
 * stime) and those of its children that ended (cutime + cstime); undefined once it is gone. The
 * fields are read after the last ')', since a command's name may hold spaces and parentheses.
 */
export function procStat(path) {
  try {
    const text = readFileSync(path, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), ended: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) of a process and its threads so far, and of its children that ended (a database's closed connections). */
export const cpuSeconds = (pid) => {
  const stat = procStat(`/proc/${pid}/stat`);
  return stat ? ((stat.own + stat.ended) * TICK_MS) / 1000 : 0;
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
