// Loaded with `node --import ./bench/lib/memory-probe.ts server/index.ts` by bench/memory.ts: on
// SIGUSR2 the server process writes what it holds (process.memoryUsage, V8 heap spaces and every
// WebAssembly memory: PGlite's Emscripten heap is one) to MEMORY_PROBE_FILE. Nothing in the app
// knows about it.
import { readFileSync, writeFileSync } from 'node:fs'
import v8 from 'node:v8'

const memories: WeakRef<WebAssembly.Memory>[] = []
const NativeMemory = WebAssembly.Memory
// A subclass, so `instanceof` and the Emscripten runtime see a real Memory.
class TrackedMemory extends NativeMemory {
  constructor(descriptor: WebAssembly.MemoryDescriptor) {
    super(descriptor)
    memories.push(new WeakRef(this))
  }
}
WebAssembly.Memory = TrackedMemory as typeof WebAssembly.Memory

function statusKb(): Record<string, number> {
  const out: Record<string, number> = {}
  try {
    const text = readFileSync('/proc/self/status', 'utf8')
    for (const line of text.split('\n')) {
      const match = /^(Vm\w+|Rss\w+):\s+(\d+) kB/.exec(line)
      if (match?.[1] && match[2]) out[match[1]] = Number(match[2])
    }
  } catch {}
  return out
}

const file = process.env.MEMORY_PROBE_FILE
if (file) {
  process.on('SIGUSR2', () => {
    const wasm = memories.flatMap((ref) => {
      const memory = ref.deref()
      return memory ? [memory.buffer.byteLength] : []
    })
    const report = {
      at: Date.now(),
      usage: process.memoryUsage(),
      status: statusKb(),
      heapSpaces: v8
        .getHeapSpaceStatistics()
        .map((s) => ({ name: s.space_name, used: s.space_used_size, size: s.space_size })),
      wasm,
    }
    writeFileSync(file, JSON.stringify(report))
  })
}
