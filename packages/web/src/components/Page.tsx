import { type ReactNode, useId } from "react"

/** A page's landmark with its heading. */
export const Page = ({
  title,
  className = "page",
  children
}: {
  readonly title: string
  readonly className?: string
  readonly children: ReactNode
}) => {
  const id = useId()
  return (
    <section className={className} aria-labelledby={id}>
      <h1 id={id}>{title}</h1>
      {children}
    </section>
  )
}

/** An API error, announced. */
export const ErrorAlert = ({ error }: { readonly error: Error | null | undefined }) =>
  error ? (
    <p role="alert" className="error">
      {error.message}
    </p>
  ) : null
