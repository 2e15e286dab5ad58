import { describe, expect, it } from 'vitest'
import { createEchoStripper } from './continuation.ts'

const strip = (partial: string, deltas: string[]) => {
  const stripper = createEchoStripper(partial)
  return deltas.map((d) => stripper.push(d)).join('') + stripper.flush()
}

describe('the echo of a continued reply', () => {
  it("drops llama.cpp's repeat of the partial reply, in one delta or several", () => {
    expect(strip('Hello there, trav', ['Hello there, travellers', ' of the north'])).toBe('ellers of the north')
    expect(strip('Hello there', ['Hel', 'lo the', 're', ' friend'])).toBe(' friend')
  })

  it('passes through a stream that sends only the new text', () => {
    expect(strip('Hello there', [' friend', ', welcome'])).toBe(' friend, welcome')
    expect(strip('Hello there', ['Hel', 'p is here'])).toBe('Help is here')
  })
})
