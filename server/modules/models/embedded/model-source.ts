import path from 'node:path'

/**
 * Where the embedded model's GGUF file comes from (ADR 037): `EMBEDDED_MODEL` is a Hugging Face
 * `hf:` URI, an https:// URL or a local path. A remote file is kept in `DATA_DIR/models/<file>`.
 */

/** Qwen3-1.7B (Apache-2.0, 119 languages), Q4_K_M quantization by Unsloth: 1.11 GB (ADR 037). */
export const DEFAULT_EMBEDDED_MODEL = 'hf:unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf'

/**
 * SHA-256 of files we know, pinned so that a changed file upstream is refused rather than run.
 * Source: two independent projects that list this file with this digest and size (1,107,409,472
 * bytes); see ADR 037 for what could and could not be verified.
 */
const PINNED_SHA256: Readonly<Record<string, string>> = {
  'https://huggingface.co/unsloth/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q4_K_M.gguf':
    'b139949c5bd74937ad8ed8c8cf3d9ffb1e99c866c823204dc42c0d91fa181897',
}

export type ModelSource =
  | {
      kind: 'local'
      /** Absolute path of the .gguf file. */
      path: string
      fileName: string
      /** What the log and the status name: the file name. */
      displayName: string
    }
  | {
      kind: 'remote'
      /** The download URL (for `hf:`, the `resolve` URL of the file). */
      url: string
      /** The file's name in `DATA_DIR/models/`. */
      fileName: string
      /** What the log and the status name: `owner/repo/file` or the URL's host and file. */
      displayName: string
      /** A Hugging Face file: its repository, revision and path, to read its published checksum. */
      huggingFace: { repo: string; revision: string; filePath: string } | null
      /** The pinned SHA-256 (lowercase hex), when this file is one we know. */
      sha256: string | null
    }

/** EMBEDDED_MODEL names no file we can use: a configuration error (the caller stops the start). */
export class ModelSourceError extends Error {}

const HF_PART = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** The file a source names, checked: a `.gguf` name without a path in it. */
function ggufName(name: string, value: string): string {
  if (!name.toLowerCase().endsWith('.gguf') || name === '.gguf') {
    throw new ModelSourceError(`EMBEDDED_MODEL must name a .gguf file: ${value}`)
  }
  return name
}

/**
 * `hf:<owner>/<repo>/<path/to/file>.gguf` with an optional `#<revision>` (node-llama-cpp's form;
 * its `hf:<owner>/<repo>:<quant>` form is refused: it names no file).
 */
function parseHuggingFace(value: string): ModelSource {
  const [rest = '', revision = 'main', ...extra] = value.slice(3).split('#')
  const parts = rest.split('/')
  if (extra.length > 0 || parts.length < 3 || !parts.every((p) => HF_PART.test(p)) || !HF_PART.test(revision)) {
    throw new ModelSourceError(
      `EMBEDDED_MODEL: a Hugging Face model is named hf:<owner>/<repo>/<file>.gguf (with #<revision> if not main): ${value}`,
    )
  }
  const [owner, repo, ...fileParts] = parts as [string, string, ...string[]]
  const filePath = fileParts.join('/')
  const fileName = ggufName(fileParts.at(-1) ?? '', value)
  const url = `https://huggingface.co/${owner}/${repo}/resolve/${revision}/${filePath}`
  return {
    kind: 'remote',
    url,
    fileName,
    displayName: `${owner}/${repo}/${filePath}`,
    huggingFace: { repo: `${owner}/${repo}`, revision, filePath },
    sha256: PINNED_SHA256[url] ?? null,
  }
}

function parseUrl(value: string): ModelSource {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ModelSourceError(`EMBEDDED_MODEL is not a valid URL: ${value}`)
  }
  // Plain http only to this machine (tests, a local mirror); anything else must be https.
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw new ModelSourceError(`EMBEDDED_MODEL: a model is downloaded over https:// only: ${value}`)
  }
  const fileName = ggufName(decodeURIComponent(url.pathname.split('/').at(-1) ?? ''), value)
  if (fileName.includes('/') || fileName.includes('\\')) throw new ModelSourceError(`EMBEDDED_MODEL: bad file name`)
  url.hash = ''
  return {
    kind: 'remote',
    url: url.href,
    fileName,
    displayName: `${url.host}/${fileName}`,
    huggingFace: null,
    sha256: PINNED_SHA256[url.href] ?? null,
  }
}

/** Reads EMBEDDED_MODEL (or the default): throws ModelSourceError on a value that names no usable file. */
export function parseModelSource(value: string = DEFAULT_EMBEDDED_MODEL, cwd = process.cwd()): ModelSource {
  const trimmed = value.trim()
  if (trimmed === '') return parseModelSource(DEFAULT_EMBEDDED_MODEL, cwd)
  if (trimmed.startsWith('hf:')) return parseHuggingFace(trimmed)
  if (/^https?:\/\//i.test(trimmed)) return parseUrl(trimmed)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    throw new ModelSourceError(`EMBEDDED_MODEL: use hf:, https:// or a file path, not ${trimmed.split(':')[0]}:`)
  }
  const absolute = path.resolve(cwd, trimmed)
  const fileName = ggufName(path.basename(absolute), value)
  return { kind: 'local', path: absolute, fileName, displayName: fileName }
}

/** Where a remote source's file is kept: `DATA_DIR/models/<file>`. A local source stays where it is. */
export function modelFilePath(source: ModelSource, dataDir: string): string {
  return source.kind === 'local' ? source.path : path.join(path.resolve(dataDir), 'models', source.fileName)
}
