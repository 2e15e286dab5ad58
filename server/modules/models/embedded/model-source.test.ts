import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_EMBEDDED_MODEL, ModelSourceError, modelFilePath, parseModelSource } from './model-source.ts'

describe('parseModelSource', () => {
  it('reads the default: a Hugging Face file with its resolve URL, its name and a pinned SHA-256', () => {
    const source = parseModelSource(DEFAULT_EMBEDDED_MODEL)
    expect(source).toEqual({
      kind: 'remote',
      url: 'https://huggingface.co/unsloth/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q4_K_M.gguf',
      fileName: 'Qwen3-1.7B-Q4_K_M.gguf',
      displayName: 'unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf',
      huggingFace: { repo: 'unsloth/Qwen3-1.7B-GGUF', revision: 'main', filePath: 'Qwen3-1.7B-Q4_K_M.gguf' },
      sha256: 'b139949c5bd74937ad8ed8c8cf3d9ffb1e99c866c823204dc42c0d91fa181897',
    })
    expect(parseModelSource('')).toEqual(source)
    expect(parseModelSource()).toEqual(source)
  })

  it('reads an hf: URI with a folder and a revision; an unknown file has no pinned checksum', () => {
    const source = parseModelSource('hf:someone/Some-Model-GGUF/q4/model.Q4_K_M.gguf#v1.2')
    expect(source).toMatchObject({
      kind: 'remote',
      url: 'https://huggingface.co/someone/Some-Model-GGUF/resolve/v1.2/q4/model.Q4_K_M.gguf',
      fileName: 'model.Q4_K_M.gguf',
      huggingFace: { repo: 'someone/Some-Model-GGUF', revision: 'v1.2', filePath: 'q4/model.Q4_K_M.gguf' },
      sha256: null,
    })
  })

  it('reads an https URL and a plain http URL on this machine', () => {
    expect(parseModelSource('https://example.com/models/tiny%20model.gguf?x=1')).toMatchObject({
      kind: 'remote',
      fileName: 'tiny model.gguf',
      displayName: 'example.com/tiny model.gguf',
      huggingFace: null,
    })
    expect(parseModelSource('http://127.0.0.1:8080/tiny.gguf')).toMatchObject({ kind: 'remote', fileName: 'tiny.gguf' })
  })

  it('reads a local path, relative to the working directory', () => {
    expect(parseModelSource('models/my.gguf', '/srv/app')).toEqual({
      kind: 'local',
      path: path.resolve('/srv/app/models/my.gguf'),
      fileName: 'my.gguf',
      displayName: 'my.gguf',
    })
    expect(parseModelSource('/opt/m/x.GGUF')).toMatchObject({ kind: 'local', path: path.resolve('/opt/m/x.GGUF') })
  })

  it.each([
    ['hf:owner/repo:Q4_K_M', /hf:<owner>\/<repo>\/<file>\.gguf/],
    ['hf:owner/repo', /hf:<owner>\/<repo>\/<file>\.gguf/],
    ['hf:owner/../etc/x.gguf', /hf:<owner>/],
    ['hf:owner/repo/readme.md', /must name a \.gguf file/],
    ['http://example.com/x.gguf', /https:\/\/ only/],
    ['ftp://example.com/x.gguf', /not ftp:/],
    ['https://example.com/', /must name a \.gguf file/],
    ['/opt/models/model.bin', /must name a \.gguf file/],
  ])('refuses %s with a clear message', (value, message) => {
    expect(() => parseModelSource(value)).toThrow(ModelSourceError)
    expect(() => parseModelSource(value)).toThrow(message)
  })
})

describe('modelFilePath', () => {
  it('keeps a remote file in DATA_DIR/models and a local one where it is', () => {
    expect(modelFilePath(parseModelSource(DEFAULT_EMBEDDED_MODEL), '/data')).toBe(
      path.resolve('/data/models/Qwen3-1.7B-Q4_K_M.gguf'),
    )
    expect(modelFilePath(parseModelSource('/opt/x.gguf'), '/data')).toBe(path.resolve('/opt/x.gguf'))
  })
})
