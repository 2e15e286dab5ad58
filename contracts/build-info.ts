// Apart from the API's other contracts (api.ts): the build watcher is part of every page's first
// load, and what it imports comes with it.

/** Build metadata written at build time and polled by the client. */
export type BuildInfo = { id: string; timestamp: number }

export function isBuildInfo(value: unknown): value is BuildInfo {
  const v = value as Partial<BuildInfo> | null
  return typeof v?.id === 'string' && typeof v.timestamp === 'number'
}
