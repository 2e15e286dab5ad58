import { describe, expect, it } from 'vitest'
import { addOtherFields, fieldsOutside } from '#server/lib/other-fields.ts'

// The fields we do not know, as the card codec and the lorebook file codec both keep them.

describe('other fields', () => {
  it('takes aside the fields no known set names, in their order, a `__proto__` key as a plain key', () => {
    const source = JSON.parse('{"keys":["a"],"content":"c","probability":40,"__proto__":{"x":1},"chub":{"id":7}}')
    const others = fieldsOutside(source, new Set(['keys']), new Set(['content']))
    expect(Object.keys(others)).toEqual(['probability', '__proto__', 'chub'])
    expect(Object.getPrototypeOf(others)).toBe(Object.prototype)
    expect(Object.hasOwn(others, '__proto__')).toBe(true)
  })

  it('writes them back after ours, never over ours, and leaves the prototype alone', () => {
    const others = JSON.parse('{"content":"theirs","toString":"kept","__proto__":{"polluted":true},"group":"g"}')
    const out = addOtherFields({ content: 'ours' }, others)
    expect(out.content).toBe('ours')
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      JSON.parse('{"content":"ours","toString":"kept","__proto__":{"polluted":true},"group":"g"}'),
    )
    expect(Object.keys(out)).toEqual(['content', 'toString', '__proto__', 'group'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(addOtherFields({ a: 1 }, undefined)).toEqual({ a: 1 })
  })
})
