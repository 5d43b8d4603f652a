import { readdir, readFile } from 'node:fs/promises';
import { megabytes, round } from './statistics';

/** Resident memory of this process's direct children by name (DynamoDB Local's java, fauxqs's node, tsx's esbuild), Linux only. */
export async function childProcessesRss(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  if (process.platform !== 'linux') return result;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(afterName[1]) !== process.pid) continue;
      const status = await readFile(`/proc/${entry}/status`, 'utf8');
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? entry;
      const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      if (rssKb > 0) result[name] = round((result[name] ?? 0) + megabytes(rssKb * 1024));
    } catch {
      // the process ended while we looked
    }
  }
  return result;
}
