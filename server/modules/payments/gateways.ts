import type { PaymentType } from '#contracts/payments.ts'
import type { Config } from '#server/config.ts'
import { btcpayProvider } from './btcpay-gateway.ts'
import type { CheckoutGateway, PaymentGateway, ProviderDefinition } from './gateway.ts'
import type { PaymentProvider } from './payments.repo.ts'
import { createSandboxGateway } from './sandbox-gateway.ts'
import { stripeProvider } from './stripe-gateway.ts'

/**
 * Every payment provider the code knows, in the order a payment type prefers them. Adding one is a
 * file that exports its `ProviderDefinition` and a line here (README.md in this folder).
 */
export const PROVIDERS: readonly ProviderDefinition[] = [stripeProvider, btcpayProvider]

/** The message when no provider (and no sandbox) takes a payment type. */
export const notConfigured = (type: PaymentType) => `${type === 'card' ? 'Card' : 'Crypto'} payments are not configured`

/** The providers as configured for this app. */
export type PaymentGateways = {
  /** Who opens a checkout of this type: its configured provider, else the sandbox when it is on. */
  forType(type: PaymentType): CheckoutGateway | undefined
  /**
   * Who stands behind an order or a subscription of this provider; undefined when that provider is
   * not configured (any more). The sandbox's always answers: its plans need no outside server.
   */
  of(provider: PaymentProvider): CheckoutGateway | undefined
  /** Every known provider, with its gateway when configured: each has a webhook URL either way. */
  webhooks: readonly { definition: ProviderDefinition; gateway: PaymentGateway | undefined }[]
  /** Whether the sandbox takes payments (and its buttons settle orders). */
  sandboxOn: boolean
}

export function paymentGateways(
  providers: readonly { definition: ProviderDefinition; gateway: PaymentGateway | undefined }[],
  sandbox: { gateway: CheckoutGateway; on: boolean },
): PaymentGateways {
  const configured = providers.flatMap(({ gateway }) => (gateway ? [gateway] : []))
  return {
    forType: (type) =>
      configured.find((gateway) => gateway.paymentTypes.includes(type)) ?? (sandbox.on ? sandbox.gateway : undefined),
    of: (provider) =>
      provider === sandbox.gateway.provider ? sandbox.gateway : configured.find((g) => g.provider === provider),
    webhooks: providers,
    sandboxOn: sandbox.on,
  }
}

/** The gateways of the providers whose keys the configuration holds, and the sandbox. */
export function createPaymentGateways(config: Config): PaymentGateways {
  return paymentGateways(
    PROVIDERS.map((definition) => ({ definition, gateway: definition.create(config) })),
    { gateway: createSandboxGateway(config.publicUrl), on: config.paymentsSandbox },
  )
}
