declare module 'fxa-common-password-list' {
  /** True when the password is among the most common leaked passwords. */
  const list: { test(password: string): boolean }
  export default list
}
