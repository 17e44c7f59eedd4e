//! Go's prints of a `resource.Quantity` with its private fields: `fmt`'s `%#v` as validation
//! messages show it, and go-spew's as client-go's `DeepHashObject` hashes it.

use super::Quantity;

impl Quantity {
    /// go-spew's `%#v` of the value with no type of its own (a map's value), as client-go's
    /// `DeepHashObject` prints a template's resources: Go's private fields included.
    pub(crate) fn spew(&self) -> String {
        let (value, scale, dec) = if self.fits {
            (self.mantissa, self.scale, "(*inf.Dec)<nil>".to_owned())
        } else {
            // `inf.Dec{unscaled big.Int, scale}`: the magnitude as 64-bit words, least first.
            let mut words = Vec::new();
            let mut rest = self.mantissa.unsigned_abs();
            while rest > 0 {
                words.push((rest as u64).to_string());
                rest >>= 64;
            }
            let abs = if words.is_empty() {
                "<nil>".to_owned()
            } else {
                format!("[{}]", words.join(" "))
            };
            let dec = format!(
                "(*inf.Dec){{unscaled:(big.Int){{neg:(bool){} abs:(big.nat){abs}}} scale:(inf.Scale){}}}",
                self.mantissa < 0,
                -self.scale
            );
            (0, 0, dec)
        };
        format!(
            "{{i:(resource.int64Amount){{value:(int64){value} scale:(resource.Scale){scale}}} \
             d:(resource.infDecAmount){{Dec:{dec}}} s:(string){} Format:(resource.Format){}}}",
            self.parsed,
            self.format.go_name()
        )
    }

    /// Go's `%#v` of the `resource.Quantity` value, as validation messages print it.
    pub(crate) fn go_syntax(&self) -> String {
        let (amount, dec) = if self.fits {
            (
                format!("resource.int64Amount{{value:{}, scale:{}}}", self.mantissa, self.scale),
                "(*inf.Dec)(nil)",
            )
        } else {
            // Go prints the pointer of its `inf.Dec`; any address stands for it.
            (
                "resource.int64Amount{value:0, scale:0}".to_owned(),
                "(*inf.Dec)(0xc000100000)",
            )
        };
        format!(
            "resource.Quantity{{i:{amount}, d:resource.infDecAmount{{Dec:{dec}}}, s:{:?}, Format:{:?}}}",
            self.cached,
            self.format.go_name()
        )
    }
}
