import { describe, expect, it } from 'vitest'
import { createTurnSlots } from './turn-slots.ts'

/** A promise and the function that settles it. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('turn slots', () => {
  it('one reply per session: a second is refused with 409 while the first runs, then allowed', async () => {
    const slots = createTurnSlots()
    const first = gate()
    const running = slots.withSlot('s1', undefined, () => first.opened)
    expect(slots.busy('s1')).toBe(true)
    await expect(slots.withSlot('s1', undefined, async () => 'second')).rejects.toMatchObject({
      status: 409,
      code: 'REPLY_IN_PROGRESS',
    })
    // Another session is not held up.
    expect(await slots.withSlot('s2', undefined, async () => 'other')).toBe('other')
    first.open()
    await running
    expect(slots.busy('s1')).toBe(false)
    expect(await slots.withSlot('s1', undefined, async () => 'again')).toBe('again')
  })

  it('the slot is freed when the work throws', async () => {
    const slots = createTurnSlots()
    await expect(
      slots.withSlot('s1', undefined, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(slots.busy('s1')).toBe(false)
  })

  it('stop aborts the running reply with reason "stop"; stop on an idle session is false', async () => {
    const slots = createTurnSlots()
    expect(slots.stop('s1')).toBe(false)
    const reason = await slots.withSlot('s1', undefined, async (slot) => {
      expect(slots.stop('s1')).toBe(true)
      expect(slot.signal.aborted).toBe(true)
      return slot.reason()
    })
    expect(reason).toBe('stop')
  })

  it('the caller’s signal aborts the slot without a reason (the client left)', async () => {
    const slots = createTurnSlots()
    const client = new AbortController()
    const result = await slots.withSlot('s1', client.signal, async (slot) => {
      client.abort()
      return { aborted: slot.signal.aborted, reason: slot.reason() }
    })
    expect(result).toEqual({ aborted: true, reason: undefined })
  })

  it('close aborts running replies with reason "shutdown" and waits for them and tracked work', async () => {
    const slots = createTurnSlots()
    const order: string[] = []
    const reply = slots.withSlot('s1', undefined, async (slot) => {
      await new Promise((resolve) => slot.signal.addEventListener('abort', resolve, { once: true }))
      await new Promise((resolve) => setTimeout(resolve, 20))
      order.push(`reply stored (${slot.reason()})`)
    })
    void slots.track(new Promise((resolve) => setTimeout(resolve, 30)).then(() => order.push('summary queued')))
    await slots.close()
    order.push('closed')
    await reply
    expect(order).toEqual(['reply stored (shutdown)', 'summary queued', 'closed'])
    expect(slots.shutdownSignal.aborted).toBe(true)
  })

  it('stopAndWait stops a reply and resolves once it has ended, even if it failed', async () => {
    const slots = createTurnSlots()
    let ended = false
    const reply = slots
      .withSlot('s1', undefined, async (slot) => {
        await new Promise((resolve) => slot.signal.addEventListener('abort', resolve, { once: true }))
        ended = true
        throw new Error('stopped mid-reply')
      })
      .catch(() => {})
    await slots.stopAndWait('s1')
    expect(ended).toBe(true)
    await reply
    await slots.stopAndWait('idle') // Nothing running: returns at once.
  })
})
