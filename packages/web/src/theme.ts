export type Theme = "light" | "dark"

const KEY = "zed.theme"

export const storedTheme = (): Theme => {
  const saved = localStorage.getItem(KEY)
  if (saved === "light" || saved === "dark") return saved
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"
}

export const applyTheme = (theme: Theme) => {
  document.documentElement.dataset["theme"] = theme
  localStorage.setItem(KEY, theme)
}
