import Foundation
import JourneyCLI

signal(SIGPIPE, SIG_IGN)  // a closed pipe (`journey eval … | head`) is a write error, not a crash
exit(JourneyCLI.run(Array(CommandLine.arguments.dropFirst()), io: .standard()))
