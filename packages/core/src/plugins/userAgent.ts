import { isObject } from "../domain/json.js"

/**
 * A small user-agent parser giving the names and values posthog-js sets in browsers (`$browser`
 * "Chrome", `$browser_version` 120, `$os` "Mac OS X", `$os_version` "10.15.7", ...), so events
 * enriched on the server break down alongside events the browser described itself. The rule order
 * matters: many user agents name several browsers (Edge and Opera also say "Chrome" and "Safari").
 */

export type DeviceType = "Desktop" | "Mobile" | "Tablet" | "Console" | "Wearable"

export interface UserAgentDetails {
  readonly $browser?: string
  readonly $browser_version?: number
  readonly $os?: string
  readonly $os_version?: string
  readonly $device?: string
  readonly $device_type?: DeviceType
}

/** The properties the parser writes: the plugin treats any of them present as "already described". */
export const USER_AGENT_PROPERTIES = [
  "$browser",
  "$browser_version",
  "$os",
  "$os_version",
  "$device",
  "$device_type"
] as const

// posthog-js reports major.minor as a number (17.2, 120 for "120.0.6099").
const versionAfter = (prefix: string, flags = ""): RegExp => new RegExp(`${prefix}(\\d+(?:\\.\\d+)?)`, flags)
const SAFARI_VERSION = versionAfter("Version/")
const BLACKBERRY = /BlackBerry|PlayBook|BB10/i

interface BrowserRule {
  readonly name: string | ((ua: string) => string)
  readonly test: (ua: string) => boolean
  readonly versions: ReadonlyArray<RegExp>
}

const contains =
  (...needles: ReadonlyArray<string>) =>
  (ua: string) =>
    needles.some((needle) => ua.includes(needle))

const BROWSERS: ReadonlyArray<BrowserRule> = [
  // posthog-js reads no version for Opera Mini.
  { name: "Opera Mini", test: (ua) => ua.includes(" OPR/") && ua.includes("Mini"), versions: [] },
  { name: "Opera", test: contains(" OPR/"), versions: [versionAfter("(?:Opera|OPR)/")] },
  { name: "BlackBerry", test: (ua) => BLACKBERRY.test(ua), versions: [versionAfter("BlackBerry "), SAFARI_VERSION] },
  { name: "Internet Explorer Mobile", test: contains("IEMobile", "WPDesktop"), versions: [versionAfter("rv:")] },
  { name: "Oculus Browser", test: contains("OculusBrowser"), versions: [versionAfter("OculusBrowser/")] },
  { name: "Samsung Internet", test: contains("SamsungBrowser"), versions: [versionAfter("SamsungBrowser/")] },
  { name: "Microsoft Edge", test: contains("Edge", "Edg/"), versions: [versionAfter("Edge?/")] },
  { name: "Vivaldi", test: contains("Vivaldi/"), versions: [versionAfter("Vivaldi/")] },
  { name: "Yandex", test: contains("YaBrowser/"), versions: [versionAfter("YaBrowser/")] },
  { name: "Whale", test: contains("Whale/"), versions: [versionAfter("Whale/")] },
  { name: "DuckDuckGo", test: contains("DuckDuckGo/", "Ddg/"), versions: [versionAfter("(?:DuckDuckGo|Ddg)/")] },
  // The Facebook in-app browser on iOS carries no version posthog-js reads.
  { name: "Facebook Mobile", test: contains("FBIOS"), versions: [] },
  { name: "UC Browser", test: contains("UCWEB", "UCBrowser"), versions: [versionAfter("(?:UCBrowser|UCWEB)/")] },
  { name: "Chrome iOS", test: contains("CriOS"), versions: [versionAfter("CriOS/")] },
  { name: "Chrome", test: contains("CrMo", "Chrome"), versions: [versionAfter("(?:Chrome|CrMo)/")] },
  {
    name: "Android Mobile",
    test: (ua) => ua.includes("Android") && ua.includes("Safari"),
    versions: [versionAfter("android\\s", "i")]
  },
  { name: "Firefox iOS", test: contains("FxiOS"), versions: [versionAfter("FxiOS/")] },
  {
    name: "Konqueror",
    test: (ua) => ua.toLowerCase().includes("konqueror"),
    versions: [versionAfter("Konqueror[:/]?", "i")]
  },
  {
    name: (ua) => (ua.includes("Mobile") ? "Mobile Safari" : "Safari"),
    test: (ua) => ua.includes("Safari") && !ua.includes("Chrome") && !ua.includes("Android"),
    versions: [SAFARI_VERSION]
  },
  { name: "Firefox", test: contains("Firefox"), versions: [versionAfter("Firefox/")] },
  { name: "Internet Explorer", test: contains("MSIE", "Trident/"), versions: [versionAfter("(?:rv:|MSIE )")] },
  // An unnamed Gecko browser is counted as Firefox, as posthog-js does.
  { name: "Firefox", test: contains("Gecko"), versions: [versionAfter("Firefox/")] }
]

const browserOf = (ua: string): { readonly name: string; readonly version: number | undefined } | undefined => {
  const rule = BROWSERS.find((candidate) => candidate.test(ua))
  if (rule === undefined) return undefined
  const name = typeof rule.name === "string" ? rule.name : rule.name(ua)
  for (const regex of rule.versions) {
    const match = regex.exec(ua)
    if (match?.[1] !== undefined) return { name, version: parseFloat(match[1]) }
  }
  return { name, version: undefined }
}

// Windows NT kernel versions → the marketing names posthog-js reports.
const WINDOWS_VERSIONS: Readonly<Record<string, string>> = {
  "NT3.51": "NT 3.11",
  "NT4.0": "NT 4.0",
  "5.0": "2000",
  "5.1": "XP",
  "5.2": "XP",
  "6.0": "Vista",
  "6.1": "7",
  "6.2": "8",
  "6.3": "8.1",
  "6.4": "10",
  "10.0": "10"
}

// "17_2" → "17.2.0": posthog-js always reports three parts when it finds a version.
const threeParts = (major: string, minor: string | undefined, patch: string | undefined) =>
  `${major}.${minor ?? "0"}.${patch ?? "0"}`

const windowsOf = (ua: string): readonly [string, string] => {
  if (/Phone|WPDesktop/.test(ua)) return ["Windows Phone", ""]
  if (ua.includes("Mobile") && !/IEMobile\b/.test(ua)) return ["Windows Mobile", ""]
  const nt = /Windows NT ([0-9.]+)/i.exec(ua)?.[1]
  if (nt === undefined) return ["Windows", ""]
  return ["Windows", /arm/i.test(ua) ? "RT" : (WINDOWS_VERSIONS[nt] ?? "")]
}

const osOf = (ua: string): readonly [string, string] | undefined => {
  const xbox = /Xbox; Xbox (.*?)[);]/i.exec(ua)
  if (xbox) return ["Xbox", xbox[1] ?? ""]
  if (/Nintendo/i.test(ua)) return ["Nintendo", ""]
  if (/PlayStation/i.test(ua)) return ["PlayStation", ""]
  if (BLACKBERRY.test(ua)) return ["BlackBerry", ""]
  if (/Windows/i.test(ua)) return windowsOf(ua)
  const ios = /(?:iPhone|iPad|iPod).*?OS (\d+)_(\d+)_?(\d+)?/.exec(ua)
  if (ios?.[1] !== undefined) return ["iOS", threeParts(ios[1], ios[2], ios[3])]
  if (ua.includes("iPhone")) return ["iOS", ""]
  const watch = /watch.*\/(\d+\.\d+\.\d+)|watch os,(\d+\.\d+),/i.exec(ua)
  if (watch) return ["watchOS", watch[1] ?? watch[2] ?? ""]
  // Only the first "Android" counts, and "Android 14;" (no minor version) gets none, as in posthog-js.
  const android = /Android(?: (\d+)\.(\d+)\.?(\d+)?)?/i.exec(ua)
  if (android) return ["Android", android[1] === undefined ? "" : threeParts(android[1], android[2], android[3])]
  const mac = /Mac OS X (\d+)[_.](\d+)[_.]?(\d+)?/i.exec(ua)
  if (mac?.[1] !== undefined) return ["Mac OS X", threeParts(mac[1], mac[2], mac[3])]
  if (/Mac/i.test(ua)) return ["Mac OS X", ""]
  if (ua.includes("CrOS")) return ["Chrome OS", ""]
  if (/Linux|debian/i.test(ua)) return ["Linux", ""]
  return undefined
}

// Android tablets leave "Mobile" out, except these; and these phones leave it out too.
const MOBILE_ANDROID_TABLETS = /9138B|TB782B|Nexus [97]|pixel c|HUAWEISHT|BTV|noble nook|smart ultra 6/i
const isAndroidPhoneWithoutMobile = (ua: string): boolean =>
  (/pixel[\daxl ]{1,6}/i.test(ua) && !/pixel c/i.test(ua)) ||
  /huaweimed-al00|tah-|APA|SM-G92|i980|zte|U304AA/i.test(ua) ||
  (/lmy47v/i.test(ua) && !/QTAQZ3/i.test(ua))

const androidDevice = (ua: string): string =>
  ua.includes("Mobile") && !MOBILE_ANDROID_TABLETS.test(ua)
    ? "Android"
    : isAndroidPhoneWithoutMobile(ua)
      ? "Android"
      : "Android Tablet"

const matching = (pattern: RegExp) => (ua: string) => pattern.test(ua)

// The first match names the device.
const DEVICES: ReadonlyArray<readonly [(ua: string) => boolean, string | ((ua: string) => string)]> = [
  [matching(/Nintendo \w+/i), "Nintendo"],
  [matching(/PlayStation \w+/i), "PlayStation"],
  [matching(/Xbox/i), "Xbox"],
  [matching(/Ouya/i), "Ouya"],
  [matching(/Windows Phone|WPDesktop/i), "Windows Phone"],
  [matching(/iPad/), "iPad"],
  [matching(/iPod/), "iPod Touch"],
  [matching(/iPhone/), "iPhone"],
  [matching(/watch(?: ?os[,/]|\d,\d\/)[\d.]+/i), "Apple Watch"],
  [matching(BLACKBERRY), "BlackBerry"],
  [matching(/kobo\s(?:ereader|touch)/i), "Kobo"],
  [matching(/Nokia/i), "Nokia"],
  [matching(/(?:kf[a-z]{2}wi|aeo[c-r]{2})(?: bui|\))|kf[a-z]+(?: bui|\)).+silk\//i), "Kindle Fire"],
  [matching(/Android|ZTE/i), androidDevice],
  [matching(/pda|Mobile/i), "Generic mobile"],
  [(ua) => /Tablet/i.test(ua) && !/Tablet pc/i.test(ua), "Generic tablet"]
]

const TABLETS = new Set(["iPad", "Android Tablet", "Kobo", "Kindle Fire", "Generic tablet"])
const CONSOLES = new Set(["Nintendo", "PlayStation", "Xbox", "Ouya"])

const deviceOf = (ua: string): readonly [string | undefined, DeviceType] => {
  const rule = DEVICES.find(([test]) => test(ua))
  if (rule === undefined) return [undefined, "Desktop"]
  const device = typeof rule[1] === "string" ? rule[1] : rule[1](ua)
  const type: DeviceType = TABLETS.has(device)
    ? "Tablet"
    : CONSOLES.has(device)
      ? "Console"
      : device === "Apple Watch"
        ? "Wearable"
        : "Mobile"
  return [device, type]
}

/**
 * What a user agent says about the browser, OS and device. Unknown parts are left out rather than
 * set to "" (posthog-js would send ""), and a string naming neither a browser nor an OS (curl, most
 * bots, garbage) gives `{}`: "Desktop" would be a guess.
 */
export const parseUserAgent = (ua: string): UserAgentDetails => {
  if (typeof ua !== "string" || ua.trim() === "") return {}
  const browser = browserOf(ua)
  const os = osOf(ua)
  if (browser === undefined && os === undefined) return {}
  const [device, deviceType] = deviceOf(ua)
  return {
    ...(browser && { $browser: browser.name }),
    ...(browser?.version !== undefined && Number.isFinite(browser.version) && { $browser_version: browser.version }),
    ...(os && { $os: os[0] }),
    ...(os && os[1] !== "" && { $os_version: os[1] }),
    ...(device !== undefined && { $device: device }),
    $device_type: deviceType
  }
}

export interface UserAgentPluginConfig {
  /** Replace browser details already on the event (posthog-js sets them in browsers). */
  readonly overrideUserAgentDetails: boolean
  /** Read Segment's `segment_userAgent` instead of PostHog's user-agent properties. */
  readonly enableSegmentAnalyticsJs?: boolean
}

// Where server-side SDKs put the user agent; PostHog's plugin drops them once parsed. `$raw_user_agent`
// is posthog-js's own property and stays.
const USER_AGENT_ALIASES = ["$useragent", "$user-agent", "$user_agent"]

const userAgentOf = (properties: Readonly<Record<string, unknown>>, segment: boolean): string | undefined => {
  const sources = segment ? ["segment_userAgent"] : ["$raw_user_agent", ...USER_AGENT_ALIASES]
  for (const key of sources) {
    const value = properties[key]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return undefined
}

/**
 * PostHog's "User Agent Populator" as a pure step: the event's properties with the parsed details
 * added. Like PostHog's plugin it leaves events alone that already carry any of the details (all or
 * nothing, so one event never mixes two descriptions) unless `overrideUserAgentDetails`, in which case
 * the old details are all replaced. Unlike it, an event it cannot enrich comes back untouched.
 */
export const userAgentPlugin = (
  properties: Readonly<Record<string, unknown>>,
  config: UserAgentPluginConfig
): Record<string, unknown> => {
  if (!isObject(properties)) return properties
  const segment = config.enableSegmentAnalyticsJs === true
  const ua = userAgentOf(properties, segment)
  if (ua === undefined) return { ...properties }
  const described = USER_AGENT_PROPERTIES.some((key) => properties[key] !== undefined)
  if (described && !config.overrideUserAgentDetails) return { ...properties }
  const details = parseUserAgent(ua)
  if (Object.keys(details).length === 0) return { ...properties }
  const out: Record<string, unknown> = { ...properties }
  for (const key of [...USER_AGENT_PROPERTIES, ...(segment ? [] : USER_AGENT_ALIASES)]) delete out[key]
  return { ...out, ...details }
}
