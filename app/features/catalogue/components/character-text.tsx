import { renderMarkdown } from '#app/lib/markdown.ts'
import { replaceMacros } from '#contracts/macros.ts'

/**
 * A text of a character page (introduction, scenario, first message) as the chat shows it:
 * `{{char}}` and `{{user}}` filled in (the visitor's name, or a neutral word) and its markdown
 * rendered (`*she smiles*` as emphasis), raw HTML escaped by app/lib/markdown.ts. `lang`: the
 * text's language when it is not the page's (a character not translated into it, ADR 039).
 */
export function CharacterText({
  text,
  empty,
  names,
  lang,
}: {
  text: string
  empty: string
  names: { char: string; user: string }
  lang?: string | undefined
}) {
  if (!text.trim()) return <p className="text-sm italic text-zinc-400">{empty}</p>
  return (
    <div
      dir="auto"
      lang={lang}
      className="chat-markdown break-words text-start text-zinc-300"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it output with raw HTML escaped
      dangerouslySetInnerHTML={{ __html: renderMarkdown(replaceMacros(text, names)) }}
    />
  )
}
