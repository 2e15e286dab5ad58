import { describe, expect, it } from 'vitest'
import { createThinkSplitter } from './reasoning.ts'

function split(deltas: string[]) {
  const splitter = createThinkSplitter()
  let content = ''
  let reasoning = ''
  for (const delta of [...deltas.map((d) => splitter.push(d)), splitter.flush()]) {
    content += delta.content
    reasoning += delta.reasoning
  }
  return { content, reasoning }
}

describe('<think> blocks in streamed content', () => {
  it('passes content without tags through untouched', () => {
    expect(split(['Hello', ' there <b>bold</b> <thin', 'k of it'])).toEqual({
      content: 'Hello there <b>bold</b> <think of it',
      reasoning: '',
    })
  })

  it('moves a block to reasoning, with its tags split over deltas', () => {
    expect(split(['<th', 'ink>I should', ' greet.</th', 'ink>', 'Hello!'])).toEqual({
      content: 'Hello!',
      reasoning: 'I should greet.',
    })
  })

  it('drops the blank lines between a block and the answer, not those inside the answer', () => {
    expect(split(['<think>Plan.</think>', '\n\n', 'Hello.\n\nHow are you?'])).toEqual({
      content: 'Hello.\n\nHow are you?',
      reasoning: 'Plan.',
    })
  })

  it('keeps an unfinished block as reasoning (a reply cut while thinking)', () => {
    expect(split(['<think>Still thinking</'])).toEqual({ content: '', reasoning: 'Still thinking</' })
  })
})
