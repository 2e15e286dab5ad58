/**
 * Sizes of a character's picture that pages show (ADR 042). The stored picture is the original
 * (any aspect ratio); each variant is cut from it when it is stored:
 * - `card-*`: the 2:3 frame of character cards (a 2:3 portrait whole, as card sites show it);
 * - `square-*`: where a square or a circle is shown (chat avatars, lists).
 * A taller picture than the frame keeps its top (faces are in the upper part), a wider one its
 * most salient part.
 */
export const IMAGE_VARIANTS = {
  'square-128': { width: 128, height: 128 },
  'card-320': { width: 320, height: 480 },
  'card-640': { width: 640, height: 960 },
} as const

export type ImageVariant = keyof typeof IMAGE_VARIANTS

export const IMAGE_VARIANT_NAMES = Object.keys(IMAGE_VARIANTS) as ImageVariant[]

/** Our stored images; other picture URLs (the default avatar, a Google profile picture) have no variants. */
const STORED_IMAGE = /^\/api\/public\/images\/[0-9a-f-]{36}$/i

/**
 * The URL of a variant of a stored image (`/api/public/images/<id>/<variant>`); any other URL as
 * it is. An image stored without variants (older uploads, drawn SVG avatars) answers its variant
 * URLs with itself.
 */
export function imageVariantUrl<T extends string | null | undefined>(url: T, variant: ImageVariant): T {
  return (url && STORED_IMAGE.test(url) ? `${url}/${variant}` : url) as T
}

/** `srcset` of the 2:3 card frame, for an `<img>` whose `src` is the 320 px variant. */
export function cardSrcSet(url: string | null | undefined): string | undefined {
  if (!url || !STORED_IMAGE.test(url)) return undefined
  return `${imageVariantUrl(url, 'card-320')} 320w, ${imageVariantUrl(url, 'card-640')} 640w`
}
