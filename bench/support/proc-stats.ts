import { readFileSync } from "node:fs";

/** Linux reports CPU times in /proc in USER_HZ ticks, which is 100 a second on every platform Node runs on. */
const TICKS_PER_SECOND = 100;

/** A process's resident memory (VmRSS in /proc/<pid>/status), in bytes: the whole process, not only its heap. */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** The CPU time a process has used so far, user and system, in milliseconds (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return ((utime + stime) / TICKS_PER_SECOND) * 1000;
}
