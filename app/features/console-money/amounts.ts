/** The number of minor units in one major unit of an ISO 4217 currency (USD 2, JPY 0, KWD 3). */
export function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/**
 * An amount typed in major units ("4.99", "4,99", "5") as integer minor units of `currency`, or
 * null when it is not a plain positive amount with at most the currency's fraction digits.
 */
export function parseMajorAmount(text: string, currency: string): number | null {
  const digits = fractionDigits(currency)
  const plain = text.trim().replace(',', '.')
  const pattern = digits > 0 ? new RegExp(`^\\d+(\\.\\d{1,${digits}})?$`) : /^\d+$/
  if (!pattern.test(plain)) return null
  const [whole = '0', part = ''] = plain.split('.')
  const minor = Number(whole) * 10 ** digits + Number(part.padEnd(digits, '0') || '0')
  return Number.isSafeInteger(minor) && minor > 0 ? minor : null
}

/** Minor units as the plain major-unit text the amount field starts with ("9.99"). */
export function majorText(minor: number, currency: string): string {
  const digits = fractionDigits(currency)
  return (minor / 10 ** digits).toFixed(digits)
}
