import { describe, expect, it } from 'vitest'
import {
  ChatFileProblem,
  humanizedDate,
  type PortableChat,
  parseSendDate,
  readSillyTavernChat,
  writeMarkdownChat,
  writeSillyTavernChat,
} from './sillytavern-chat.ts'

const jsonl = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')
const header = { user_name: 'You', character_name: 'Aqua', create_date: 1674559896839 }

function refusal(text: string): ChatFileProblem {
  try {
    readSillyTavernChat(text)
  } catch (error) {
    if (error instanceof ChatFileProblem) return error
    throw error
  }
  throw new Error('the file was read')
}

describe('SillyTavern send_date styles', () => {
  it('reads every style SillyTavern wrote, to the millisecond where it has them', () => {
    expect(parseSendDate(1674563371558)?.toISOString()).toBe('2023-01-24T12:29:31.558Z')
    expect(parseSendDate('1674563371558')?.toISOString()).toBe('2023-01-24T12:29:31.558Z')
    expect(parseSendDate('2023-4-21 @20h 02m 47s 124ms')?.toISOString()).toBe('2023-04-21T20:02:47.124Z')
    // Milliseconds are a number: "05ms" is 5 ms, not 50.
    expect(parseSendDate('2023-4-21 @20h 02m 47s 05ms')?.toISOString()).toBe('2023-04-21T20:02:47.005Z')
    expect(parseSendDate('2024-7-12@01h31m37s')?.toISOString()).toBe('2024-07-12T01:31:37.000Z')
    expect(parseSendDate('June 19, 2023 2:20pm')?.toISOString()).toBe('2023-06-19T14:20:00.000Z')
    expect(parseSendDate('June 19, 2023 12:05am')?.toISOString()).toBe('2023-06-19T00:05:00.000Z')
    expect(parseSendDate('2025-03-01T10:11:12.345Z')?.toISOString()).toBe('2025-03-01T10:11:12.345Z')
    expect(parseSendDate('2025-03-01T10:11:12+02:00')?.toISOString()).toBe('2025-03-01T08:11:12.000Z')
  })

  it('reads nothing else as a date', () => {
    for (const value of [
      '',
      'yesterday',
      'Smarch 3, 2023 2:20pm',
      '2023-13-45T99:99',
      -5,
      1e20,
      Number.NaN,
      null,
      {},
    ]) {
      expect(parseSendDate(value), String(value)).toBeNull()
    }
  })

  it("writes the header's create_date in SillyTavern's humanized style", () => {
    expect(humanizedDate(new Date('2024-07-02T01:03:07.999Z'))).toBe('2024-07-02@01h03m07s')
    expect(parseSendDate(humanizedDate(new Date('2024-07-02T01:03:07Z')))?.toISOString()).toBe(
      '2024-07-02T01:03:07.000Z',
    )
  })
})

describe('reading a SillyTavern chat file', () => {
  it('reads the header and messages, the shown swipe as the text and every swipe kept', () => {
    const { chat, leftOut } = readSillyTavernChat(
      jsonl(
        { ...header, chat_metadata: { note_prompt: '' } },
        {
          name: 'Aqua',
          is_user: false,
          is_system: false,
          send_date: '2023-4-21 @20h 02m 47s 124ms',
          mes: 'Second greeting',
          swipes: ['First greeting', 'Second greeting'],
          swipe_id: 1,
          swipe_info: [],
          extra: {},
        },
        { name: 'You', is_user: true, is_name: true, send_date: 1674563371558, mes: 'Hello!', extra: {} },
        {
          name: 'Aqua',
          is_user: false,
          send_date: '2025-01-02T03:04:05.006Z',
          mes: 'Reply B',
          swipes: ['Reply A', 'Reply B', 'Reply C'],
          swipe_id: 1,
          swipe_info: [{ send_date: '2025-01-02T03:00:00.000Z', extra: {} }, {}, {}],
        },
      ),
    )
    expect(leftOut).toBe(0)
    expect(chat.userName).toBe('You')
    expect(chat.characterName).toBe('Aqua')
    expect(chat.createdAt.toISOString()).toBe('2023-01-24T11:31:36.839Z')
    expect(chat.messages.map((m) => [m.author, m.swipes.map((s) => s.content), m.shown])).toEqual([
      ['assistant', ['First greeting', 'Second greeting'], 1],
      ['user', ['Hello!'], 0],
      ['assistant', ['Reply A', 'Reply B', 'Reply C'], 1],
    ])
    expect(chat.messages[2]?.swipes[0]?.sentAt.toISOString()).toBe('2025-01-02T03:00:00.000Z')
    // A swipe without its own date takes the message's.
    expect(chat.messages[2]?.swipes[2]?.sentAt.toISOString()).toBe('2025-01-02T03:04:05.006Z')
  })

  it('leaves hidden and empty messages out and counts them', () => {
    const read = readSillyTavernChat(
      jsonl(
        header,
        { name: 'Aqua', is_user: false, mes: 'Hi' },
        { name: 'System', is_user: false, is_system: true, mes: 'A comment', extra: { type: 'comment' } },
        { name: 'You', is_user: true, mes: '  ' },
        { name: 'You', is_user: true, mes: 'Hey' },
      ),
    )
    expect(read.leftOut).toBe(2)
    expect(read.chat.messages.map((m) => m.swipes[0]?.content)).toEqual(['Hi', 'Hey'])
  })

  it("takes `mes` as the shown swipe when a file's swipe_id is out of range or its swipe differs", () => {
    const { chat } = readSillyTavernChat(
      jsonl(
        header,
        { is_user: false, mes: 'B', swipes: ['A', 'B'], swipe_id: 7 },
        { is_user: false, mes: 'edited', swipes: ['A', 'B'], swipe_id: 0 },
      ),
    )
    expect(chat.messages.map((m) => [m.swipes.map((s) => s.content), m.shown])).toEqual([
      [['A', 'B'], 1],
      [['edited', 'B'], 0],
    ])
  })

  it("flattens Chub's `{ message }` texts and a byte order mark, and skips blank lines", () => {
    const { chat } = readSillyTavernChat(
      `\uFEFF${jsonl(header, '', { is_user: false, mes: { message: 'X' }, swipes: [{ message: 'X' }, 'Y'], swipe_id: 0 })}\r\n\r\n`,
    )
    expect(chat.messages[0]?.swipes.map((s) => s.content)).toEqual(['X', 'Y'])
  })

  it('refuses what is not a SillyTavern chat, saying which line', () => {
    expect(refusal('').reason).toBe('empty_file')
    expect(refusal(' \n\n').reason).toBe('empty_file')
    expect(refusal(jsonl(header, '{"mes": "x"')).details).toEqual({ line: 2 })
    expect(refusal(jsonl(header, '[1,2]')).reason).toBe('bad_line')
    expect(refusal(jsonl({ name: 'Aqua', is_user: false, mes: 'Hi' })).reason).toBe('no_header')
    expect(refusal(jsonl({ spec: 'chara_card_v2', data: {} })).reason).toBe('no_header')
    expect(refusal(jsonl({ user_name: 5, character_name: 'A' }, { mes: 'x' })).reason).toBe('no_header')
    const noText = refusal(jsonl(header, { is_user: true }))
    expect([noText.reason, noText.details]).toEqual(['bad_message', { line: 2, field: 'mes' }])
    expect(refusal(jsonl(header, { mes: 'x', is_user: 'yes' })).reason).toBe('bad_message')
    expect(refusal(jsonl(header, { mes: 'x', swipes: 'x' })).reason).toBe('bad_message')
    expect(refusal(jsonl(header, { mes: 'x', swipes: ['x', 3] })).details).toEqual({ line: 2, field: 'swipes.1' })
    expect(refusal(jsonl(header)).reason).toBe('no_messages')
    expect(refusal(jsonl(header, { is_system: true, mes: 'hidden' })).reason).toBe('no_messages')
  })

  it('refuses text the database cannot hold', () => {
    expect(refusal(jsonl(header, { mes: 'a\u0000b' })).reason).toBe('invalid_text')
    expect(refusal(jsonl(header, '{"mes": "broken \\ud800 half"}')).reason).toBe('invalid_text')
    expect(refusal(jsonl({ ...header, user_name: 'x\u0000' }, { mes: 'a' })).reason).toBe('invalid_text')
  })

  it('refuses a file over its bounds before storing anything', () => {
    const long = 'あ'.repeat(100_001)
    expect(refusal(jsonl(header, { mes: long })).details).toEqual({ line: 2, field: 'mes', limit: 100_000 })
    // 100,000 characters outside the Basic Multilingual Plane are 200,000 UTF-16 units: still within.
    expect(readSillyTavernChat(jsonl(header, { mes: '😀'.repeat(100_000) })).chat.messages).toHaveLength(1)
    const manySwipes = refusal(jsonl(header, { mes: 'a', swipes: Array(257).fill('a'), swipe_id: 0 }))
    expect(manySwipes.details).toEqual({ line: 2, field: 'swipes', limit: 256 })
    const many = [header, ...Array.from({ length: 10_001 }, () => ({ mes: 'a' }))]
    expect(refusal(jsonl(...many)).details).toEqual({ field: 'messages', limit: 10_000 })
    expect(readSillyTavernChat(jsonl(...many.slice(0, 10_001))).chat.messages).toHaveLength(10_000)
    const texts = [
      header,
      ...Array.from({ length: 201 }, () => ({ mes: 'a', swipes: Array(250).fill('a'), swipe_id: 0 })),
    ]
    expect(refusal(jsonl(...texts)).details).toEqual({ line: 202, field: 'texts', limit: 50_000 })
    expect(refusal(jsonl({ ...header, user_name: 'n'.repeat(257) }, { mes: 'a' })).details).toEqual({
      line: 1,
      field: 'user_name',
      limit: 256,
    })
  })

  it('takes nothing from keys outside the format (prototype keys included)', () => {
    const { chat } = readSillyTavernChat(
      jsonl(header, '{"__proto__": {"polluted": true}, "constructor": {"x": 1}, "mes": "fine"}'),
    )
    expect(chat.messages[0]?.swipes[0]?.content).toBe('fine')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('writing a chat', () => {
  const chat: PortableChat = {
    userName: 'hanako',
    characterName: 'セラフィナ',
    createdAt: new Date('2025-05-01T09:08:07.000Z'),
    messages: [
      {
        author: 'assistant',
        sentAt: new Date('2025-05-01T09:08:07.000Z'),
        swipes: [
          { content: 'Hello, hanako!', sentAt: new Date('2025-05-01T09:08:07.000Z') },
          { content: 'Back again?', sentAt: new Date('2025-05-01T09:08:07.000Z') },
        ],
        shown: 1,
      },
      {
        author: 'user',
        sentAt: new Date('2025-05-01T09:09:00.123Z'),
        swipes: [{ content: 'I am.\nTwo lines.', sentAt: new Date('2025-05-01T09:09:00.123Z') }],
        shown: 0,
      },
      {
        author: 'assistant',
        sentAt: new Date('2025-05-01T09:09:30.000Z'),
        modelId: 'qwen3',
        swipes: [{ content: '*smiles*', sentAt: new Date('2025-05-01T09:09:30.000Z'), modelId: 'qwen3' }],
        shown: 0,
      },
    ],
  }

  it("writes SillyTavern's JSONL field by field: a header line, then one line a message", () => {
    const lines = writeSillyTavernChat(chat)
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(4)
    expect(lines[0]).toEqual({
      user_name: 'hanako',
      character_name: 'セラフィナ',
      create_date: '2025-05-01@09h08m07s',
      chat_metadata: {},
    })
    expect(Object.keys(lines[1])).toEqual([
      'name',
      'is_user',
      'is_system',
      'send_date',
      'mes',
      'extra',
      'swipes',
      'swipe_id',
      'swipe_info',
    ])
    expect(lines[1]).toEqual({
      name: 'セラフィナ',
      is_user: false,
      is_system: false,
      send_date: '2025-05-01T09:08:07.000Z',
      mes: 'Back again?',
      extra: {},
      swipes: ['Hello, hanako!', 'Back again?'],
      swipe_id: 1,
      swipe_info: [
        { send_date: '2025-05-01T09:08:07.000Z', extra: {} },
        { send_date: '2025-05-01T09:08:07.000Z', extra: {} },
      ],
    })
    // A user message has no swipes in SillyTavern's files.
    expect(lines[2]).toEqual({
      name: 'hanako',
      is_user: true,
      is_system: false,
      send_date: '2025-05-01T09:09:00.123Z',
      mes: 'I am.\nTwo lines.',
      extra: {},
    })
    expect(lines[3].extra).toEqual({ model: 'qwen3' })
    expect(lines[3].swipe_info[0].extra).toEqual({ model: 'qwen3' })
  })

  it('reads back what it writes, every swipe and date', () => {
    const back = readSillyTavernChat(writeSillyTavernChat(chat)).chat
    const view = (c: PortableChat) =>
      c.messages.map((m) => ({
        author: m.author,
        sentAt: m.sentAt.toISOString(),
        shown: m.shown,
        swipes: m.swipes.map((s) => [s.content, s.sentAt.toISOString()]),
      }))
    expect(view(back)).toEqual(view(chat))
    expect([back.userName, back.characterName, back.createdAt.toISOString()]).toEqual([
      'hanako',
      'セラフィナ',
      '2025-05-01T09:08:07.000Z',
    ])
  })

  it('writes Markdown to read: the shown text of each message under its author and date', () => {
    const md = writeMarkdownChat(chat)
    expect(md).toContain('# セラフィナ\n')
    expect(md).toContain('**セラフィナ** ‹2/2› · 2025-05-01 09:08 UTC\n\nBack again?\n')
    expect(md).toContain('**hanako** · 2025-05-01 09:09 UTC\n\nI am.\nTwo lines.\n')
    expect(md).not.toContain('Hello, hanako!')
  })
})
