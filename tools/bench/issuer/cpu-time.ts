/** Milliseconds of CPU (user + system) this process used since `since` (a `process.cpuUsage()` reading). */
export const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
