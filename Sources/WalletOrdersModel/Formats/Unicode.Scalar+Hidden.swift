extension Unicode.Scalar {
    /// Whether text from outside must show this scalar written out rather than let a screen obey it: the controls (C0,
    /// DEL and C1, where CSI U+009B starts a sequence as ESC [ does), the bidirectional formatting characters (which
    /// reorder what is shown after them: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the line and
    /// paragraph separators. The one rule the console and the command line share.
    public var isHiddenControl: Bool {
        properties.generalCategory == .control || properties.isBidiControl || self == "\u{2028}" || self == "\u{2029}"
    }
}
