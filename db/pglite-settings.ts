import { PGlite } from '@electric-sql/pglite'

/**
 * PostgreSQL settings PGlite starts with (docs/decisions/063-memory-footprint.md).
 *
 * PGlite runs PostgreSQL inside one WebAssembly memory that only ever grows: whatever PostgreSQL
 * allocates once stays in the process's RSS until it exits. Its own defaults are a server's:
 * `shared_buffers` of 128 MB, allocated and zeroed at start, made PGlite's share of an idle
 * server ~270 MB, and `maintenance_work_mem` of 64 MB let one VACUUM or index build grow it further.
 * Pages not in shared buffers are read from the operating system's file cache (PGlite reads its
 * files through Node's `fs`), which is shared and not counted against the process.
 *
 * Measured on the demo content and over 100,000 roles (bench/memory.ts, bench/roles.ts):
 * 16 MB of shared buffers saves ~120 MB of RSS and keeps the role listing's latency.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  // VACUUM's dead-tuple list and index builds (migrations) grow the WebAssembly memory up to this.
  maintenance_work_mem: '16MB',
  // Each sort or hash of a query may use this much before spilling to a temporary file.
  work_mem: '4MB',
  // Only sessions that create temporary tables use them (the app does not).
  temp_buffers: '1MB',
}

export function pgliteStartParams(settings: Readonly<Record<string, string>> = PGLITE_SETTINGS): string[] {
  return [
    ...PGlite.defaultStartParams,
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ]
}
