import Features
import Foundation
import JourneyCLI

signal(SIGPIPE, SIG_IGN)  // a closed pipe (`journey eval … | head`) is a write error, not a crash
// The one place that puts the engine together: every feature, handed to the command line (and
// through `journey serve` to the service and its workers).
exit(JourneyCLI(features: Features.all).run(Array(CommandLine.arguments.dropFirst()), io: .standard()))
