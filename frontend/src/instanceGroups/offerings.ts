// Instance types as a zone offers them (the instanceTypeOfferings query),
// described the way people choose them: accelerators first, with GPU count
// and memory.

/** The fields of an offering this module reads. */
export interface Offering {
  instanceType: string;
  acceleratorCount: number;
  acceleratorName: string | null;
  acceleratorMemoryGiB: number;
  vcpus: number;
  memoryGiB: number;
}

/** The option text of an offering in a list of choices. */
export function offeringLabel(o: Offering): string {
  return `${o.instanceType} — ${offeringSpec(o)}`;
}

/** In a few words, what an instance type has: its accelerators, or its CPUs and memory. */
export function offeringSpec(o: Offering): string {
  if (o.acceleratorCount === 0) return `${o.vcpus} vCPU, ${o.memoryGiB} GiB`;
  return `${o.acceleratorCount} × ${o.acceleratorName ?? "accelerator"} ${o.acceleratorMemoryGiB} GiB`;
}

/** What an instance type offers, for the hint under its choice. */
export function describeOffering(o: Offering): string {
  const base = `${o.vcpus} vCPUs, ${o.memoryGiB} GiB memory`;
  if (o.acceleratorCount === 0) return `No accelerators; ${base}.`;
  const total = o.acceleratorCount * o.acceleratorMemoryGiB;
  return `${o.acceleratorCount} × ${o.acceleratorName ?? "accelerator"} with ${o.acceleratorMemoryGiB} GiB each (${total} GiB in all); ${base}.`;
}

/**
 * Offerings split into accelerated types (most accelerators first, then
 * most accelerator memory) and CPU-only ones, each otherwise in the order
 * the server gave.
 */
export function splitOfferings<T extends Offering>(offerings: readonly T[]): { accelerated: T[]; cpuOnly: T[] } {
  const accelerated = offerings
    .map((o, i) => ({ o, i }))
    .filter(({ o }) => o.acceleratorCount > 0)
    .sort((a, b) => b.o.acceleratorCount - a.o.acceleratorCount || b.o.acceleratorMemoryGiB - a.o.acceleratorMemoryGiB || a.i - b.i)
    .map(({ o }) => o);
  return { accelerated, cpuOnly: offerings.filter((o) => o.acceleratorCount === 0) };
}
