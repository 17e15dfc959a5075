// RUN: serenity-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{lifetime last-use step (1) must be >= def step (2)}}
func.func @last_before_def() attributes {a = #serenity.lifetime<bytes = 4, def = 2, last = 1>} {
  return
}

// -----

// expected-error @+1 {{lifetime bytes must be >= 0, got -8}}
func.func @negative_bytes() attributes {a = #serenity.lifetime<bytes = -8, def = 0, last = 1>} {
  return
}

// -----

// expected-error @+1 {{lifetime def step must be >= -1}}
func.func @bad_def() attributes {a = #serenity.lifetime<bytes = 8, def = -3, last = 1>} {
  return
}

// -----

// expected-error @+1 {{expected 'bytes'}}
func.func @missing_field() attributes {a = #serenity.lifetime<def = 0, last = 1>} {
  return
}
