#ifndef IMGWARM_START_H
#define IMGWARM_START_H

/* Linked into the imgwarm executable only: a constructor that installs the stop-signal handlers
   (imgwarm_stop_install) before Swift's main runs, so a signal in the first instants of a run is
   recorded like any later one instead of ending the process without a report. Commands that do
   not stop gracefully give the signals back (imgwarm_stop_release). Nothing to call. */

#endif
