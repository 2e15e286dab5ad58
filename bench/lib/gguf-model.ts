// Writes a Llama-architecture GGUF (v3) with random weights and realistic dimensions, keeping the
// tokenizer (and general.*) key/value pairs of a small source GGUF byte for byte, so a token costs
// what it costs in a real model of that size (bench/embedded.ts). Weights are f16 (norms f32),
// random and small; the replies are gibberish, the arithmetic per token is real.
import { open, readFile } from 'node:fs/promises'

export type ModelShape = { embedding: number; blocks: number; feedForward: number; heads: number; kvHeads: number }

const ALIGNMENT = 32
const F32 = 0
const F16 = 1
// Sizes of GGUF value types 0..12 (8 string, 9 array: variable).
const SCALAR_SIZE = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8]

/** The raw bytes of each key/value pair of a GGUF v3 file, by key, and the tokenizer's vocabulary size. */
async function readKeyValues(file: string) {
  const buf = await readFile(file)
  if (buf.toString('latin1', 0, 4) !== 'GGUF' || buf.readUInt32LE(4) !== 3) throw new Error(`${file}: not GGUF v3`)
  const count = Number(buf.readBigUInt64LE(16))
  let at = 24
  const skipString = () => {
    at += 8 + Number(buf.readBigUInt64LE(at))
  }
  const skipValue = (type: number) => {
    if (type === 8) return skipString()
    if (type === 9) {
      const itemType = buf.readUInt32LE(at)
      const n = Number(buf.readBigUInt64LE(at + 4))
      at += 12
      if (itemType === 8 || itemType === 9) for (let i = 0; i < n; i++) skipValue(itemType)
      else at += n * (SCALAR_SIZE[itemType] ?? Number.NaN)
      return
    }
    const size = SCALAR_SIZE[type]
    if (!size) throw new Error(`${file}: unknown value type ${type}`)
    at += size
  }
  const pairs = new Map<string, Buffer>()
  let vocabulary = 0
  for (let i = 0; i < count; i++) {
    const start = at
    const key = buf.toString('utf8', at + 8, at + 8 + Number(buf.readBigUInt64LE(at)))
    skipString()
    const type = buf.readUInt32LE(at)
    at += 4
    if (key === 'tokenizer.ggml.tokens') vocabulary = Number(buf.readBigUInt64LE(at + 4))
    skipValue(type)
    pairs.set(key, buf.subarray(start, at))
  }
  return { pairs, vocabulary }
}

const string = (s: string) => {
  const bytes = Buffer.from(s, 'utf8')
  const length = Buffer.alloc(8)
  length.writeBigUInt64LE(BigInt(bytes.length))
  return Buffer.concat([length, bytes])
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n)
  return b
}
const u64 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(BigInt(n))
  return b
}
const f32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeFloatLE(n)
  return b
}
const keyValue = (key: string, type: number, value: Buffer) => Buffer.concat([string(key), u32(type), value])
const padding = (offset: number) => (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT

/**
 * Random f16 weights: random sign and mantissa, exponent 2^-9..2^-6 (|w| ≈ 0.002..0.016), so the
 * activations neither vanish nor overflow. A fixed xorshift seed: the same file every run.
 */
function fillRandomF16(words: Uint32Array, seed: { x: number }) {
  let x = seed.x
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    words[i] = ((x & 0x83ff83ff) | ((((x >>> 10) & 0x00030003) + 0x00060006) << 10)) >>> 0
  }
  seed.x = x
}

/** Writes the model to `target`; returns its size in bytes. */
export async function writeRandomLlama(source: string, target: string, shape: ModelShape) {
  const { pairs, vocabulary } = await readKeyValues(source)
  const kept = [...pairs].filter(([key]) => key.startsWith('tokenizer.') || key === 'general.architecture')
  const headSize = shape.embedding / shape.heads
  const kvWidth = headSize * shape.kvHeads
  const keyValues = [
    ...kept.map(([, raw]) => raw),
    keyValue('general.name', 8, string(`random ${shape.embedding}x${shape.blocks} (bench)`)),
    keyValue('general.file_type', 4, u32(F16)),
    keyValue('llama.context_length', 4, u32(4096)),
    keyValue('llama.embedding_length', 4, u32(shape.embedding)),
    keyValue('llama.block_count', 4, u32(shape.blocks)),
    keyValue('llama.feed_forward_length', 4, u32(shape.feedForward)),
    keyValue('llama.rope.dimension_count', 4, u32(headSize)),
    keyValue('llama.attention.head_count', 4, u32(shape.heads)),
    keyValue('llama.attention.head_count_kv', 4, u32(shape.kvHeads)),
    keyValue('llama.attention.layer_norm_rms_epsilon', 6, f32(1e-5)),
  ]
  // Shapes as GGUF stores them: [columns (input), rows (output)].
  const tensors: { name: string; dims: number[]; type: number }[] = [
    { name: 'token_embd.weight', dims: [shape.embedding, vocabulary], type: F16 },
  ]
  for (let b = 0; b < shape.blocks; b++) {
    const t = (name: string, dims: number[], type = F16) =>
      tensors.push({ name: `blk.${b}.${name}.weight`, dims, type })
    t('attn_norm', [shape.embedding], F32)
    t('attn_q', [shape.embedding, shape.embedding])
    t('attn_k', [shape.embedding, kvWidth])
    t('attn_v', [shape.embedding, kvWidth])
    t('attn_output', [shape.embedding, shape.embedding])
    t('ffn_norm', [shape.embedding], F32)
    t('ffn_gate', [shape.embedding, shape.feedForward])
    t('ffn_up', [shape.embedding, shape.feedForward])
    t('ffn_down', [shape.feedForward, shape.embedding])
  }
  tensors.push({ name: 'output_norm.weight', dims: [shape.embedding], type: F32 })
  tensors.push({ name: 'output.weight', dims: [shape.embedding, vocabulary], type: F16 })

  let offset = 0
  const infos: Buffer[] = []
  const placed = tensors.map((tensor) => {
    const bytes = tensor.dims.reduce((a, b) => a * b, 1) * (tensor.type === F16 ? 2 : 4)
    offset += padding(offset)
    infos.push(
      Buffer.concat([
        string(tensor.name),
        u32(tensor.dims.length),
        ...tensor.dims.map(u64),
        u32(tensor.type),
        u64(offset),
      ]),
    )
    const at = offset
    offset += bytes
    return { ...tensor, at, bytes }
  })
  const header = Buffer.concat([
    Buffer.from('GGUF', 'latin1'),
    u32(3),
    u64(tensors.length),
    u64(keyValues.length),
    ...keyValues,
    ...infos,
  ])
  const dataStart = header.length + padding(header.length)
  const file = await open(target, 'w')
  try {
    await file.write(header, 0, header.length, 0)
    const seed = { x: 0x9e3779b9 }
    for (const tensor of placed) {
      const data = Buffer.alloc(tensor.bytes)
      if (tensor.type === F32) new Float32Array(data.buffer, data.byteOffset, tensor.bytes / 4).fill(1)
      else fillRandomF16(new Uint32Array(data.buffer, data.byteOffset, tensor.bytes / 4), seed)
      await file.write(data, 0, data.length, dataStart + tensor.at)
    }
  } finally {
    await file.close()
  }
  return dataStart + offset
}
