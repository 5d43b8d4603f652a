import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { round } from './statistics';

/** CPU time so far, in clock ticks; zeros off Linux. */
export interface CpuTicks {
  /** This process and its children: the ended ones (ffmpeg, ffprobe) as the kernel sums them once reaped, and the running ones (DynamoDB Local, fauxqs). */
  stack: number;
  /** Every CPU of the machine: busy, and busy or idle. */
  machineBusy: number;
  machineTotal: number;
}

/** Fields of /proc/<pid>/stat after the command name, which may hold spaces; index 0 is field 3 (state). */
const afterName = (stat: string) =>
  stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
const UTIME = 11;
const STIME = 12;
const CHILDREN_UTIME = 13;
const CHILDREN_STIME = 14;
const PARENT_PID = 1;
/** USER_HZ, the unit of /proc's CPU times: 100 on every architecture Linux runs Node on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds, user and system, of this process's children that have ended and been reaped (with
 * every thread, and their own reaped children); 0 off Linux. Read at once, so that a child's
 * `exit` listener sees the child's own time already added.
 */
export function reapedChildrenCpuSeconds(): number {
  if (process.platform !== 'linux') return 0;
  const own = afterName(readFileSync('/proc/self/stat', 'utf8'));
  return (own[CHILDREN_UTIME]! + own[CHILDREN_STIME]!) / TICKS_PER_SECOND;
}

export async function cpuTicks(): Promise<CpuTicks> {
  if (process.platform !== 'linux') return { stack: 0, machineBusy: 0, machineTotal: 0 };
  const own = afterName(await readFile('/proc/self/stat', 'utf8'));
  let stack = own[UTIME]! + own[STIME]! + own[CHILDREN_UTIME]! + own[CHILDREN_STIME]!;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = afterName(await readFile(`/proc/${entry}/stat`, 'utf8'));
      if (fields[PARENT_PID] === process.pid) stack += fields[UTIME]! + fields[STIME]!;
    } catch {
      // the process ended while we looked
    }
  }
  // The first line of /proc/stat: user nice system idle iowait irq softirq steal (guest time is inside user).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = (await readFile('/proc/stat', 'utf8'))
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const machineBusy = user! + nice! + system! + irq! + softirq! + steal!;
  return { stack, machineBusy, machineTotal: machineBusy + idle! + iowait! };
}

/**
 * Between two readings: the stack's CPU time as a percentage of all the machine's CPUs, and how
 * busy the machine was (the stack and anything else running). Both counts are in the same clock
 * ticks, /proc/stat's summed over every CPU.
 */
export function cpuPercentages(before: CpuTicks, after: CpuTicks) {
  const machineTicks = after.machineTotal - before.machineTotal;
  return {
    stack_percent_of_machine: round(((after.stack - before.stack) / machineTicks) * 100),
    machine_busy_percent: round(((after.machineBusy - before.machineBusy) / machineTicks) * 100),
  };
}
